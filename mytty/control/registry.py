"""Every control command module, by wire ``type``."""

from __future__ import annotations

from types import ModuleType

from mytty.control import (
    agent_close,
    agent_focus,
    agent_result,
    agent_send,
    agent_spawn,
    agent_wait,
    attention,
    close_pane,
    ensure_session,
    env,
    events,
    focus,
    integration,
    list_panes,
    new_tab,
    read,
    send,
    send_key,
    split,
    status,
    wait,
)

MODULES: tuple[ModuleType, ...] = (
    list_panes,
    new_tab,
    split,
    send,
    send_key,
    read,
    focus,
    close_pane,
    status,
    env,
    ensure_session,
    wait,
    events,
    attention,
    agent_spawn,
    agent_wait,
    agent_result,
    agent_send,
    agent_focus,
    agent_close,
    integration,
)


def _build() -> dict[str, ModuleType]:
    table: dict[str, ModuleType] = {}
    for module in MODULES:
        for name in getattr(module, "TYPES", None) or (module.TYPE,):
            table[name] = module
    return table


COMMANDS: dict[str, ModuleType] = _build()
