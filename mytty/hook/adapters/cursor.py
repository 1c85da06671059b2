"""Cursor hook payloads → events (providers.md §6.2).

The run is keyed by ``generation_id`` (one run per prompt), falling back to the conversation.
``preToolUse`` also feeds the controller's approval estimate: a ``preToolUse`` whose
``postToolUse`` does not follow within 10 s is reported as an approval request, keyed by the
sanitised ``tool_use_id`` — so the helper always sends that id when Cursor gives one.
"""

from mytty.hook import mapping as k
from mytty.hook.fields import (
    sanitize_message,
    sanitize_session_id,
    sanitize_tool_name,
    sanitize_tool_use_id,
    text_field,
)
from mytty.hook.mapping import HookMapping

_STOP_KINDS = {"completed": k.SUCCEEDED, "error": k.FAILED, "aborted": k.DISCONNECTED}
_TOOL_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure"})
_SHELL_EVENTS = frozenset({"beforeShellExecution", "afterShellExecution"})  # legacy installs

# Cursor reads these events' stdout as a permission decision, and an empty reply was seen to
# deny the tool call: always answer with an explicit "no opinion".
_PERMISSION_EVENTS = frozenset(
    {"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"}
)
NEUTRAL_REPLY = b"{}\n"


def neutral_reply(payload: dict[str, object] | None) -> bytes | None:
    """``{}`` for permission-type events — and for a payload we could not read, since it may be
    one of them — nothing for the rest."""
    if payload is None:
        return NEUTRAL_REPLY
    name = payload.get("hook_event_name")
    if not isinstance(name, str) or name in _PERMISSION_EVENTS:
        return NEUTRAL_REPLY
    return None


def map_payload(payload: dict[str, object]) -> HookMapping | None:
    """Map one Cursor hook payload, or None when mytty does not follow that event."""
    name = text_field(payload, "hook_event_name")
    tool_name: str | None = None
    tool_use_id: str | None = None
    message: str | None = None
    if name == "beforeSubmitPrompt":
        kind = k.STARTED
    elif name in _TOOL_EVENTS:
        kind = k.RUNNING
        tool_name = sanitize_tool_name(payload.get("tool_name"))
        tool_use_id = sanitize_tool_use_id(payload.get("tool_use_id"))
        if name == "preToolUse":
            message = tool_name
    elif name in _SHELL_EVENTS:
        kind = k.RUNNING
        message = sanitize_message(payload.get("command"))
    elif name == "stop":
        # A stop without a known status still ends the run: a dropped stop would leave the
        # pane looking busy forever.
        kind = _STOP_KINDS.get(text_field(payload, "status") or "", k.SUCCEEDED)
        if kind == k.FAILED:
            message = sanitize_message(payload.get("error"))
    else:
        return None
    session_id = sanitize_session_id(payload.get("conversation_id"))
    if session_id is None:
        session_id = sanitize_session_id(payload.get("session_id"))  # the Cursor CLI's name
    return HookMapping(
        kind,
        run_key=text_field(payload, "generation_id") or session_id,
        session_id=session_id,
        message=message,
        hook_name=name,
        tool_name=tool_name,
        tool_use_id=tool_use_id,
    )
