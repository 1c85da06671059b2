"""The event socket envelope: ``{"schemaVersion":1,"capability":…,"event":{…}}``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import SCHEMA_VERSION, AgentEvent, event_from_wire, event_to_wire


@dataclass(frozen=True, slots=True)
class Envelope:
    schema_version: int
    capability: str | None
    event: AgentEvent


def encode_envelope(event: AgentEvent, capability: str | None) -> bytes:
    """One envelope as a newline-terminated UTF-8 JSON line."""
    obj: dict[str, Any] = {"schemaVersion": SCHEMA_VERSION}
    if capability is not None:
        obj["capability"] = capability
    obj["event"] = event_to_wire(event, fractional=True)
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
    except (
        ValueError,
        UnicodeDecodeError,
        RecursionError,
    ) as exc:  # JSONDecodeError is a ValueError
        raise MyttyError(ErrorCode.INVALID_REQUEST, str(exc)) from None
    return Envelope(schema_version=version, capability=capability, event=event)


def encode_event_reply(*, inserted: bool | None = None, error: ErrorCode | None = None) -> bytes:
    if error is not None:
        return json.dumps({"ok": False, "error": error.value}).encode() + b"\n"
    return json.dumps({"ok": True, "inserted": bool(inserted)}).encode() + b"\n"
