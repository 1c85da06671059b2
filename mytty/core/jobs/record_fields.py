"""Typed reads of the fields of a stored JSON record (a job row and its launch).

Each raises TypeError when the value has the wrong type, so a record reader can turn every
malformed row into one "does not decode" answer.
"""

from __future__ import annotations


def text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def optional_text(value: object) -> str | None:
    return None if value is None else text(value)


def texts(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return tuple(text(v) for v in value)


def count(value: object) -> int:
    """A whole number of at least 0 (``true``/``false`` are not counts)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("not a count")
    return value


def optional_time(value: object) -> float | None:
    """Seconds (an int or float, not ``true``/``false``), or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("not a time")
    return float(value)
