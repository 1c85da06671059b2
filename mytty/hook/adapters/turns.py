"""What the Claude Code and Codex adapters share: turn-keyed runs from session hooks."""

from mytty.core.answers import clip_answer
from mytty.hook import mapping as k
from mytty.hook.fields import (
    approval_message,
    first_message,
    sanitize_session_id,
    sanitize_tool_use_id,
    text_field,
)
from mytty.hook.mapping import HookMapping


def turn_mapping(
    payload: dict[str, object],
    *,
    name: str,
    kind: str,
    tool_name: str | None,
    turn_key: str,
    message: str | None,
    message_keys: tuple[str, ...],
) -> HookMapping:
    """The mapping for one hook of a turn-keyed provider.

    The run is the turn (``payload[turn_key]``), falling back to the session; ``SessionEnd``
    always lands on the session-keyed run that ``SessionStart`` opened, so quitting the CLI does
    not turn the last turn's outcome into ``disconnected``.
    """
    if message is None:
        message = first_message(payload, message_keys)
    if message is None and kind == k.APPROVAL_REQUESTED:
        message = approval_message(tool_name)
    # A turn's end carries the agent's final answer (Claude Stop/StopFailure, Codex Stop).
    answer = (
        clip_answer(payload.get("last_assistant_message"))
        if kind in (k.SUCCEEDED, k.FAILED)
        else None
    )
    session_id = sanitize_session_id(payload.get("session_id"))
    run_key = session_id if name == "SessionEnd" else text_field(payload, turn_key) or session_id
    return HookMapping(
        kind,
        run_key=run_key,
        session_id=session_id,
        message=message,
        hook_name=name,
        tool_name=tool_name,
        tool_use_id=sanitize_tool_use_id(payload.get("tool_use_id")),
        last_assistant_message=answer,
    )
