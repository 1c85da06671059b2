"""Inheriting the lead agent's permission mode: which of its flags a worker copies.

``agent spawn --access inherit`` (or an omitted ``--access`` under a same-provider lead) copies
the permission flags the lead was started with (:func:`scan_inherited_flags`), falling back to
the mode the lead stored locally and finally to the workspace-write flags
(:func:`inherit_mode_flags`). Pure: ``mytty.daemon.jobs.inherit`` reads the processes and files.
"""

from __future__ import annotations

from collections.abc import Sequence

from mytty.core.events import WorkerProvider
from mytty.core.jobs.launch import access_flags
from mytty.core.validation import MAX_FIELD_SCALARS, is_control_char, is_space_char
from mytty.core.vocab import WORKSPACE_WRITE

# Flags worth inheriting: flag name → takes a value?
INHERITABLE_FLAGS: dict[WorkerProvider, dict[str, bool]] = {
    WorkerProvider.CLAUDE: {"--permission-mode": True, "--dangerously-skip-permissions": False},
    WorkerProvider.CODEX: {
        "-s": True,
        "--sandbox": True,
        "-a": True,
        "--ask-for-approval": True,
        "--full-auto": False,
        "--yolo": False,
        "--dangerously-bypass-approvals-and-sandbox": False,
    },
    WorkerProvider.CURSOR: {"--mode": True, "--force": False, "--sandbox": True},
}

#: Claude permission modes accepted from a transcript.
CLAUDE_STORED_MODES = frozenset(
    {"acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"}
)
#: Cursor modes accepted from its conversation store (both are read-only modes).
CURSOR_STORED_MODES = frozenset({"plan", "ask"})


def is_valid_flag_value(value: str) -> bool:
    """A flag value worth copying: non-empty, ≤100 scalars, no leading ``-``, no space/control."""
    if not value or len(value) > MAX_FIELD_SCALARS or value.startswith("-"):
        return False
    return not any(is_control_char(ch) or is_space_char(ch) for ch in value)


def scan_inherited_flags(provider: WorkerProvider, argv: Sequence[str]) -> list[str]:
    """Collect the permission flags of ``provider`` from a lead's argv, in their original order.

    Both ``--flag value`` and ``--flag=value`` are recognised; a valued flag always comes out as
    two tokens, spelled as the lead spelled it (``-s`` stays ``-s``). A flag whose value fails
    :func:`is_valid_flag_value` is dropped, and in the two-token form the would-be value is then
    examined as a flag of its own. The scan stops at a bare ``--``: what follows is the lead's
    prompt text, and a prompt that reads ``--dangerously-skip-permissions`` must not hand the
    worker that permission.
    """
    known = INHERITABLE_FLAGS[provider]
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            break
        name, eq, inline_value = token.partition("=")
        if eq:
            if known.get(name) is True and is_valid_flag_value(inline_value):
                out += [name, inline_value]
            continue
        takes_value = known.get(token)
        if takes_value is None:
            continue
        if not takes_value:
            out.append(token)
            continue
        if i < len(argv) and is_valid_flag_value(argv[i]):
            out += [token, argv[i]]
            i += 1
    return out


def stored_mode_flags(worker: WorkerProvider, stored_mode: str | None) -> list[str]:
    """Flags for a mode the lead recorded locally; empty when there is none or it isn't valid."""
    if stored_mode is None:
        return []
    if worker is WorkerProvider.CLAUDE and stored_mode in CLAUDE_STORED_MODES:
        return ["--permission-mode", stored_mode]
    if worker is WorkerProvider.CURSOR and stored_mode in CURSOR_STORED_MODES:
        return ["--mode", stored_mode]
    return []  # codex inherits from argv only


def inherit_mode_flags(
    worker: WorkerProvider, argv_flags: Sequence[str], stored_mode: str | None
) -> list[str]:
    """The inherited mode: argv flags, else the stored mode, else the workspace-write flags."""
    if argv_flags:
        return list(argv_flags)
    stored = stored_mode_flags(worker, stored_mode)
    if stored:
        return stored
    return access_flags(worker, WORKSPACE_WRITE)
