"""The event socket envelope: ``{"schemaVersion":1,"capability":…,"event":{…}}``, and its reply."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mytty.core.approvals.model import Action
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import (
    SCHEMA_VERSION,
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    parse_timestamp,
)
from mytty.core.ids import RunId, SurfaceId, normalize_uuid
from mytty.protocol import bounds
from mytty.protocol.replies import HeldApproval
from mytty.protocol.wire import agent_event, decision_line, event_accepted, event_rejected

#: At most this many paths travel with one approval request.
MAX_APPROVAL_PATHS = 64


@dataclass(frozen=True, slots=True)
class ApprovalAsk:
    """``"approval": {…}`` (a mytty extension): a PermissionRequest hook that waits for a
    decision. What the agent asks to do, and in which directory."""

    action: Action
    cwd: str | None


@dataclass(frozen=True, slots=True)
class Envelope:
    schema_version: int
    capability: str | None
    event: AgentEvent
    #: ``"leadNotices": true`` (a mytty extension): the hook that sent the event can hand the
    #: agent a notice (``agent spawn --notify-lead``), so the reply may carry one.
    lead_notices: bool = False
    #: ``"approval": {…}`` (a mytty extension): the hook waits for a decision.
    approval: ApprovalAsk | None = None


def _wrapped_uuid(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be an object with rawValue")
    uuid = normalize_uuid(value.get("rawValue"))
    if uuid is None:
        raise ValueError(f"{key}.rawValue must be a UUID")
    return uuid


def _optional_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _int(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer")
    return value


def event_from_wire(obj: object) -> AgentEvent:
    """Decode the ``event`` object of an envelope. Raises ValueError on any shape problem.

    The inverse of :func:`mytty.protocol.wire.agent_event` (the store keeps events this way).
    """
    if not isinstance(obj, dict):
        raise ValueError("event must be an object")
    return AgentEvent(
        schema_version=_int(obj, "schemaVersion"),
        id=_wrapped_uuid(obj, "id"),
        run_id=RunId(_wrapped_uuid(obj, "runID")),
        surface_id=SurfaceId(_wrapped_uuid(obj, "surfaceID")),
        provider=AgentProvider(str(obj.get("provider"))),
        kind=AgentEventKind(str(obj.get("kind"))),
        occurred_at=parse_timestamp(obj.get("occurredAt")),
        session_id=_optional_str(obj, "sessionID"),
        message=_optional_str(obj, "message"),
        hook_name=_optional_str(obj, "hookName"),
        tool_use_id=_optional_str(obj, "toolUseID"),
        tool_name=_optional_str(obj, "toolName"),
        last_assistant_message=_optional_str(obj, "lastAssistantMessage"),
    )


def _text(obj: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise ValueError(f"approval.{key} must be a string")
    value.encode("utf-8")  # a lone surrogate is no text the store can keep
    return value


def approval_from_wire(obj: object) -> ApprovalAsk:
    """Decode an envelope's ``approval`` object. Raises ValueError (UnicodeEncodeError is one)."""
    if not isinstance(obj, dict):
        raise ValueError("approval must be an object")
    paths = obj.get("paths", [])
    if (
        not isinstance(paths, list)
        or len(paths) > MAX_APPROVAL_PATHS
        or not all(isinstance(p, str) and p for p in paths)
    ):
        raise ValueError(f"approval.paths must be a list of at most {MAX_APPROVAL_PATHS} paths")
    for path in paths:
        path.encode("utf-8")
    truncated = obj.get("truncated", False)
    if not isinstance(truncated, bool):
        raise ValueError("approval.truncated must be true or false")
    tool = _text(obj, "tool", required=True)
    assert tool is not None
    action = Action(
        tool=tool,
        command=_text(obj, "command"),
        paths=tuple(paths),
        diff=_text(obj, "diff"),
        description=_text(obj, "description"),
        truncated=truncated,
    )
    return ApprovalAsk(action=action, cwd=_text(obj, "cwd"))


def encode_envelope(
    event: AgentEvent, capability: str | None, *, lead_notices: bool = False
) -> bytes:
    """One envelope as a newline-terminated UTF-8 JSON line."""
    obj: dict[str, Any] = {"schemaVersion": SCHEMA_VERSION}
    if capability is not None:
        obj["capability"] = capability
    obj["event"] = agent_event(event, fractional=True)
    if lead_notices:
        obj["leadNotices"] = True
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def decode_envelope(body: bytes) -> Envelope:
    """Decode a request body (without its newline). Raises MyttyError(INVALID_REQUEST)."""
    try:
        obj = json.loads(body.decode("utf-8"))
        if not isinstance(obj, dict):
            raise ValueError("envelope must be an object")
        version = obj.get("schemaVersion")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ValueError("schemaVersion must be an integer")
        capability = obj.get("capability")
        if capability is not None and not isinstance(capability, str):
            raise ValueError("capability must be a string")
        event = event_from_wire(obj.get("event"))
        lead_notices = obj.get("leadNotices", False)
        if not isinstance(lead_notices, bool):
            raise ValueError("leadNotices must be true or false")
        approval = approval_from_wire(obj["approval"]) if "approval" in obj else None
        where = bounds.out_of_range(body, obj)
        if where is not None:
            raise ValueError(f"{where} holds an integer out of range")
    except (
        ValueError,
        UnicodeDecodeError,
        RecursionError,
    ) as exc:  # JSONDecodeError is a ValueError
        raise MyttyError(ErrorCode.INVALID_REQUEST, str(exc)) from None
    return Envelope(
        schema_version=version,
        capability=capability,
        event=event,
        lead_notices=lead_notices,
        approval=approval,
    )


def encode_event_reply(
    *,
    inserted: bool | None = None,
    error: ErrorCode | None = None,
    notice: str | None = None,
    approval: HeldApproval | None = None,
) -> bytes:
    """The event server's reply line (json's default separators, as it has always been sent).

    ``notice`` (a mytty extension, only for an envelope with ``leadNotices``): text for the
    hook to hand its agent; a helper that does not know the key ignores it. ``approval`` (a
    mytty extension, only for an envelope with ``approval``): the broker's answer.
    """
    if error is not None:
        return json.dumps(event_rejected(error)).encode() + b"\n"
    return json.dumps(event_accepted(bool(inserted), notice, approval)).encode() + b"\n"


def encode_decision_line(decision: str | None, message: str | None = None) -> bytes:
    """The second line of a held PermissionRequest (:class:`~mytty.protocol.replies.DecisionLine`)."""
    return json.dumps(decision_line(decision, message), ensure_ascii=False).encode() + b"\n"
