"""Antigravity / Gemini CLI plugin payloads → events (providers.md §5.2).

Payloads carry no event name: a ``fullyIdle`` key marks a Stop, an ``invocationNum`` key a
Pre/PostInvocation (which look alike, hence no hookName). The run is keyed by the conversation,
so every turn of one conversation shares a run.
"""

from mytty.hook import mapping as k
from mytty.hook.fields import sanitize_message, sanitize_session_id, text_field
from mytty.hook.mapping import HookMapping

_FAILED_TERMINATIONS = frozenset({"error", "max_steps_exceeded"})
STOP_REPLY = b'{"decision":"stop"}\n'
NEUTRAL_REPLY = b"{}\n"


def neutral_reply(payload: dict[str, object] | None) -> bytes | None:
    """Let a Stop stop (``{"decision":"stop"}``); ``{}`` for everything else."""
    if payload is not None and "fullyIdle" in payload:
        return STOP_REPLY
    return NEUTRAL_REPLY


def map_payload(payload: dict[str, object]) -> HookMapping | None:
    """Map one Antigravity payload, or None when it is neither a Stop nor an invocation."""
    hook_name: str | None = None
    message: str | None = None
    if "fullyIdle" in payload:
        hook_name = "Stop"
        error = sanitize_message(payload.get("error"))
        if payload.get("terminationReason") in _FAILED_TERMINATIONS or error is not None:
            kind = k.FAILED
            message = error
        else:
            kind = k.SUCCEEDED
    elif "invocationNum" in payload:
        kind = k.RUNNING
    else:
        return None
    return HookMapping(
        kind,
        run_key=text_field(payload, "conversationId"),
        session_id=sanitize_session_id(payload.get("conversationId")),
        message=message,
        hook_name=hook_name,
    )
