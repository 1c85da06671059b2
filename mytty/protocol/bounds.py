"""Bounds on the numbers a request may carry (JSON itself puts none on integers).

An integer beyond 64 bits is no count, sequence, version or timeout anybody means; past 4300
digits Python will not even parse it. Both sockets refuse such numbers as ``invalid-request``
before any handler sees them (a float conversion deep inside used to raise OverflowError and
answer internal-error with a traceback).
"""

from __future__ import annotations

#: The largest magnitude an integer in a request may have (SQLite's INTEGER range).
MAX_INTEGER = 2**63 - 1
#: 19+ digits in a row: the only bodies that can hold an out-of-range integer pay for a walk.
#: Found by mapping every digit to "0" and every other byte to " " (one C pass; a regex
#: search costs several times more on bodies full of UUIDs, and both sockets run it per request).
_LONG_DIGITS = b"0" * 19
_DIGITS_ONLY = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))


def too_many_digits(exc: ValueError) -> bool:
    """True when json refused the body for an integer too long to parse (not bad syntax)."""
    return "digits" in str(exc) and "integer" in str(exc)


def out_of_range(body: bytes, obj: object) -> str | None:
    """Where ``obj`` (decoded from ``body``) holds an integer past MAX_INTEGER, else None."""
    if _LONG_DIGITS not in body.translate(_DIGITS_ONLY):
        return None
    return _find(obj, "")


def _find(obj: object, path: str) -> str | None:
    if isinstance(obj, bool):
        return None
    if isinstance(obj, int):
        return path or "the request" if abs(obj) > MAX_INTEGER else None
    if isinstance(obj, dict):
        for key, value in obj.items():
            found = _find(value, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            found = _find(value, f"{path}[{index}]")
            if found is not None:
                return found
    return None
