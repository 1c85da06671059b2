"""OpenCode bus events → events (providers.md §4.3).

mytty's OpenCode plugin forwards a few bus events to the helper as
``{"run_id": <user message id>, "event": {"type": …, "properties": {…}}}``. The run is keyed by
``run_id`` — the id of the user message that started the turn — with no fallback.
"""

from mytty.hook import mapping as k
from mytty.hook.fields import object_field, sanitize_message, sanitize_session_id, text_field
from mytty.hook.mapping import HookMapping

_KINDS = {
    "message.updated": k.STARTED,
    "permission.asked": k.APPROVAL_REQUESTED,
    "permission.updated": k.APPROVAL_REQUESTED,
    "permission.replied": k.RUNNING,
    "question.asked": k.INPUT_REQUESTED,
    "session.idle": k.SUCCEEDED,
    "session.error": k.FAILED,
}


def _message(kind: str, properties: dict[str, object]) -> str | None:
    if kind == k.APPROVAL_REQUESTED:
        return sanitize_message(properties.get("title"))
    if kind == k.INPUT_REQUESTED:
        title = sanitize_message(properties.get("title"))
        if title is not None:
            return title
        questions = properties.get("questions")
        if isinstance(questions, list) and questions and isinstance(questions[0], dict):
            return sanitize_message(questions[0].get("header"))
        return None
    if kind == k.FAILED:
        error = object_field(properties, "error") or {}
        data = object_field(error, "data") or {}
        return sanitize_message(data.get("message")) or sanitize_message(error.get("message"))
    return None


def map_payload(payload: dict[str, object]) -> HookMapping | None:
    """Map one forwarded OpenCode event, or None when mytty does not follow it."""
    event = object_field(payload, "event")
    if event is None:
        return None
    name = text_field(event, "type")
    properties = object_field(event, "properties")
    if name is None or properties is None or name not in _KINDS:
        return None
    info = object_field(properties, "info") or {}
    if name == "message.updated" and info.get("role") != "user":
        return None
    kind = _KINDS[name]
    session_id = sanitize_session_id(properties.get("sessionID"))
    if session_id is None:
        session_id = sanitize_session_id(info.get("sessionID"))
    return HookMapping(
        kind,
        run_key=text_field(payload, "run_id"),
        session_id=session_id,
        message=_message(kind, properties),
        hook_name=name,
    )
