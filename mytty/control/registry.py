"""Every control command: its ``mytty-ctl`` name and its module. Adding a command is one line.

``mytty-ctl`` looks a command up here by name and imports only that module; the controller
imports them all (:func:`by_wire`). The order is the order of ``mytty-ctl --help``, the guide
and the reference page. Commands without a ``mytty-ctl`` command have a ``None`` name.
"""

from __future__ import annotations

from types import ModuleType

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)

if TYPE_CHECKING:
    from mytty.control.spec import Command

#: (mytty-ctl command, module under mytty.control), one line per command.
ENTRIES: tuple[tuple[str | None, str], ...] = (
    ("list", "list_panes"),
    ("new-tab", "new_tab"),
    ("split", "split"),
    ("send", "send"),
    ("send-key", "send_key"),
    ("read", "read"),
    ("focus", "focus"),
    ("close-pane", "close_pane"),
    ("status", "status"),
    ("wait", "wait"),
    ("events", "events"),
    ("env", "env"),
    ("agent spawn", "agent_spawn"),
    ("agent wait", "agent_wait"),
    ("agent result", "agent_result"),
    ("agent send", "agent_send"),
    ("agent focus", "agent_focus"),
    ("agent close", "agent_close"),
    ("agent list", "agent_list"),
    ("agent resume", "agent_resume"),
    ("limits list", "limits_list"),
    ("limits resume", "limits_resume"),
    ("limits hold", "limits_hold"),
    ("explain", "explain"),
    ("integration list", "integration_list"),
    ("integration enable", "integration_enable"),
    ("integration repair", "integration_repair"),
    ("approval list", "approval_list"),
    ("approval answer", "approval_answer"),
    ("approval log", "approval_log"),
    (None, "approval_rule"),
    ("hosts", "hosts"),
    (None, "attention"),
    (None, "ensure_session"),
    (None, "notify_test"),
)

#: Command words that only group subcommands (``agent spawn``, ``integration list``).
GROUPS: tuple[str, ...] = tuple(
    dict.fromkeys(name.split(" ", 1)[0] for name, _ in ENTRIES if name and " " in name)
)


def load(module_name: str) -> ModuleType:
    # __import__ rather than importlib: the same thing, and `python -X importtime` sees it.
    module: ModuleType = __import__(f"mytty.control.{module_name}", fromlist=["COMMAND"])
    return module


def module_for(name: str) -> ModuleType | None:
    """The module of the ``mytty-ctl`` command ``name`` (``"agent spawn"``), imported now."""
    for cli, module_name in ENTRIES:
        if cli == name:
            return load(module_name)
    return None


def subcommands(group: str) -> list[str]:
    return [n.split(" ", 1)[1] for n, _ in ENTRIES if n and n.startswith(group + " ")]


def modules() -> list[ModuleType]:
    """Every command module, in registry order."""
    return [load(module_name) for _, module_name in ENTRIES]


def declarations() -> list[Command]:
    return [module.COMMAND for module in modules()]


def by_wire() -> dict[str, ModuleType]:
    """Wire ``type`` → command module (what the controller dispatches on)."""
    table: dict[str, ModuleType] = {}
    for module in modules():
        wire = module.COMMAND.wire
        if wire in table:
            raise RuntimeError(f"two command modules declare the wire type {wire!r}")
        table[wire] = module
    return table
