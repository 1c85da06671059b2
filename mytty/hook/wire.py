"""The event envelope as bytes, built on the helper's hot path without ``mytty.core.events``.

``mytty.protocol.envelope.encode_envelope`` is the reference encoder; it needs an ``AgentEvent``,
whose module imports ``dataclasses`` and ``datetime`` (about as much start-up time as the whole
rest of the helper). This module writes the very same bytes from plain strings — same key order,
same compact separators, same millisecond ``Z`` timestamps — and a test holds the two equal.
"""

import time

from mytty.protocol.jsonlite import dumps

#: Schema version of both the envelope and the event (core.events.SCHEMA_VERSION).
SCHEMA_VERSION = 1
#: Surface id the helper sends for codex when the pane gave it none; the server ignores
#: the surface of codex events and routes them by sessionID.
NIL_SURFACE_ID = "00000000-0000-0000-0000-000000000000"


def format_occurred_at(seconds: float) -> str:
    """ISO 8601 UTC with milliseconds and a ``Z`` suffix.

    Milliseconds keep hooks that fire within one second in order for the controller (the
    original sent whole seconds). Rounded like ``datetime`` (to microseconds, then truncated),
    so it matches ``core.events.format_timestamp(..., fractional=True)``.
    """
    whole = int(seconds)
    micros = round((seconds - whole) * 1_000_000)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{stamp}.{micros // 1000:03d}Z"


def encode_event_line(
    *,
    event_id: str,
    run_id: str,
    surface_id: str,
    provider: str,
    kind: str,
    occurred_at: str,
    capability: str | None,
    session_id: str | None = None,
    message: str | None = None,
    hook_name: str | None = None,
    tool_use_id: str | None = None,
    tool_name: str | None = None,
    last_assistant_message: str | None = None,
    lead_notices: bool = False,
    approval: dict[str, object] | None = None,
) -> bytes:
    """One newline-terminated UTF-8 JSON envelope, byte-identical to ``encode_envelope``.

    ``lead_notices``: this hook can hand its agent a lead notice (the reply may carry one).
    ``approval``: a PermissionRequest waiting for a decision (mytty.hook.approval).
    """
    event: dict[str, object] = {
        "schemaVersion": SCHEMA_VERSION,
        "id": {"rawValue": event_id},
        "runID": {"rawValue": run_id},
    }
    if session_id is not None:
        event["sessionID"] = session_id
    event["surfaceID"] = {"rawValue": surface_id}
    event["provider"] = provider
    event["kind"] = kind
    event["occurredAt"] = occurred_at
    if message is not None:
        event["message"] = message
    if hook_name is not None:
        event["hookName"] = hook_name
    if tool_use_id is not None:
        event["toolUseID"] = tool_use_id
    if tool_name is not None:
        event["toolName"] = tool_name
    if last_assistant_message is not None:
        event["lastAssistantMessage"] = last_assistant_message
    envelope: dict[str, object] = {"schemaVersion": SCHEMA_VERSION}
    if capability is not None:
        envelope["capability"] = capability
    envelope["event"] = event
    if lead_notices:
        envelope["leadNotices"] = True
    if approval is not None:
        envelope["approval"] = approval
    text = dumps(envelope)
    return text.encode("utf-8") + b"\n"
