"""Control socket codec: one JSON request object with a ``type``, one JSON reply."""

from __future__ import annotations

import json
from typing import Any

from mytty.core.errors import ErrorCode, MyttyError


def decode_request(body: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise MyttyError(ErrorCode.INVALID_REQUEST, "the request is not UTF-8 JSON") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise MyttyError(ErrorCode.INVALID_REQUEST, "the request must be an object with a 'type'")
    return obj


def encode_reply(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def failure(code: ErrorCode, message: str) -> dict[str, Any]:
    return {"type": "failure", "code": code.value, "message": message}
