"""Codex hook payloads → events (providers.md §2.3, real payloads of codex-cli 0.171.0).

The run is keyed by ``turn_id`` (one run per turn), falling back to the session id
(``SessionStart`` has no turn). ``SessionEnd`` always lands on the session-keyed run.
The controller routes codex events by ``sessionID`` rather than by surface, because hooks of a
daemon-hosted Codex inherit the environment of whichever pane started the daemon.
"""

from mytty.hook import mapping as k
from mytty.hook.fields import (
    approval_message,
    first_message,
    sanitize_session_id,
    sanitize_tool_name,
    sanitize_tool_use_id,
    text_field,
)
from mytty.hook.mapping import INPUT_TOOLS, HookMapping

_SIMPLE_KINDS = {
    "SessionStart": k.IDLE,
    "UserPromptSubmit": k.STARTED,
    "PostToolUse": k.RUNNING,
    "Stop": k.SUCCEEDED,
    "SessionEnd": k.DISCONNECTED,
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
    message = first_message(payload, _MESSAGE_KEYS)
    if message is None and kind == k.APPROVAL_REQUESTED:
        message = approval_message(tool_name)
    session_id = sanitize_session_id(payload.get("session_id"))
    run_key = session_id if name == "SessionEnd" else text_field(payload, "turn_id") or session_id
    return HookMapping(
        kind,
        run_key=run_key,
        session_id=session_id,
        message=message,
        hook_name=name,
        tool_name=tool_name,
        tool_use_id=sanitize_tool_use_id(payload.get("tool_use_id")),
    )
