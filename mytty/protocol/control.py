"""Control socket codec: one JSON request object with a ``type``, one JSON reply."""

from __future__ import annotations

import json
import re
from typing import Any

from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol import bounds
from mytty.protocol.replies import Reply
from mytty.protocol.wire import failure

__all__ = ["decode_request", "encode_reply", "failure"]

#: A ``\uD800``-``\uDFFF`` escape: the only way a lone surrogate gets into decoded JSON (the
#: UTF-8 decoder refuses encoded ones), so only requests holding one pay for the full check.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def decode_request(body: bytes) -> dict[str, Any]:
    """Decode one control request. Raises MyttyError(INVALID_REQUEST).

    Every string in it (keys too) is valid Unicode afterwards: a lone surrogate could reach
    tmux, a file or the UTF-8 reply of some later request, and fail there instead of here.
    """
    try:
        obj = json.loads(body.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        if bounds.too_many_digits(exc):
            raise MyttyError(
                ErrorCode.INVALID_REQUEST, "a number in the request has too many digits"
            ) from None
        raise MyttyError(ErrorCode.INVALID_REQUEST, "the request is not UTF-8 JSON") from None
    except RecursionError:
        raise MyttyError(ErrorCode.INVALID_REQUEST, "the request is nested too deeply") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise MyttyError(ErrorCode.INVALID_REQUEST, "the request must be an object with a 'type'")
    where = bounds.out_of_range(body, obj)
    if where is not None:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST,
            f"field {where!r} holds an integer out of range (at most {bounds.MAX_INTEGER})",
        )
    if _SURROGATE_ESCAPE.search(body) is not None and not _encodable(obj):
        raise MyttyError(
            ErrorCode.INVALID_REQUEST,
            "the request holds text that is not valid Unicode (a lone surrogate escape)",
        )
    return obj


def _encodable(obj: object) -> bool:
    """True when ``obj`` (decoded JSON) encodes as UTF-8, i.e. holds no lone surrogate."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return False
    return True


def encode_reply(obj: Reply) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
