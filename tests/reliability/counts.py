"""Case counts of the reliability suite, printed in pytest's terminal summary (conftest.py)."""

from __future__ import annotations

from collections import Counter

_counts: Counter[str] = Counter()
_outcomes: Counter[tuple[str, str]] = Counter()


def add(name: str, n: int = 1) -> None:
    _counts[name] += n


def snapshot() -> dict[str, int]:
    return dict(_counts)


def outcome(socket: str, answer: str) -> None:
    """Count one reply by what it answered (an error code, or the success reply's kind)."""
    _outcomes[(socket, answer)] += 1


def outcomes() -> dict[tuple[str, str], int]:
    return dict(_outcomes)
