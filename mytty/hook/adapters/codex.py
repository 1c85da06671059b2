"""Codex hook payloads → events (providers.md §2.3, real payloads of codex-cli 0.171.0).

Beyond the original's table, ``Interrupt`` (Esc during a turn) ends the turn's run as ``idle``.

The run is keyed by ``turn_id`` (one run per turn), falling back to the session id
(``SessionStart`` has no turn). ``SessionEnd`` always lands on the session-keyed run.
The controller routes codex events by ``sessionID`` rather than by surface, because hooks of a
daemon-hosted Codex inherit the environment of whichever pane started the daemon.
"""

from mytty.hook import mapping as k
from mytty.hook.adapters.notice import notice_output, takes_notice
from mytty.hook.adapters.turns import turn_mapping
from mytty.hook.fields import sanitize_tool_name, text_field
from mytty.hook.mapping import INPUT_TOOLS, HookMapping

__all__ = ["map_payload", "notice_output", "takes_notice"]  # notices: see adapters.notice

_SIMPLE_KINDS = {
    "SessionStart": k.IDLE,
    "UserPromptSubmit": k.STARTED,
    "PostToolUse": k.RUNNING,
    "Stop": k.SUCCEEDED,
    "SessionEnd": k.DISCONNECTED,
    # Esc during a turn fires Interrupt and no Stop; without this the turn would stay running
    # forever (the original left it unmapped).
    "Interrupt": k.IDLE,
}
_MESSAGE_KEYS = ("message",)


def map_payload(payload: dict[str, object]) -> HookMapping | None:
    """Map one Codex hook payload, or None when mytty does not follow that event."""
    name = text_field(payload, "hook_event_name")
    if name is None:
        return None
    tool_name = sanitize_tool_name(payload.get("tool_name"))
    if name in _SIMPLE_KINDS:
        kind = _SIMPLE_KINDS[name]
    elif name == "PermissionRequest":
        kind = k.INPUT_REQUESTED if tool_name in INPUT_TOOLS else k.APPROVAL_REQUESTED
    else:
        return None
    return turn_mapping(
        payload,
        name=name,
        kind=kind,
        tool_name=tool_name,
        turn_key="turn_id",
        message=None,
        message_keys=_MESSAGE_KEYS,
    )
