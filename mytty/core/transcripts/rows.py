"""What every JSONL transcript reader shares (Claude's project ``.jsonl``, Codex's rollout):
decoding one row, checking a turn key, and the turn state a reader advances line by line.

Pure: the readers are fed whole lines; where the lines come from is the daemon's business.
"""

from __future__ import annotations

import dataclasses
import json

from mytty.core.estimation.turn_observation import (
    ENDED,
    WITH_MESSAGE,
    TurnObservation,
    TurnPhase,
)
from mytty.core.events import parse_timestamp

#: Identifiers longer than this (UTF-8 bytes) are not real (semantics §9.4).
MAX_ID_BYTES = 256
#: Ended turns kept for the next report (:meth:`TurnReader.report`); older ones are dropped.
MAX_PASSED_TURNS = 32


def valid_identifier(value: object) -> str | None:
    """``value`` when it is a usable turn key: a non-empty string of at most 256 UTF-8 bytes
    without control characters (taken as is, not trimmed); else None."""
    if not isinstance(value, str) or not value:
        return None
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in value):
        return None
    try:
        if len(value.encode("utf-8")) > MAX_ID_BYTES:
            return None
    except UnicodeEncodeError:  # a lone surrogate from a \udXXX escape
        return None
    return value


def decode_line(line: bytes) -> dict[str, object] | None:
    """One JSONL row as an object; None for anything else (a torn write, garbage, an array)."""
    try:
        row = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return row if isinstance(row, dict) else None


def row_time(row: dict[str, object]) -> float | None:
    """A row's ``timestamp`` (ISO 8601) as Unix seconds; None when it has none or a bad one."""
    try:
        return parse_timestamp(row.get("timestamp"))
    except (ValueError, OverflowError):
        return None


class TurnReader:
    """One transcript's turn so far (``key``, ``phase``), advanced by :meth:`apply` per row."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.phase: TurnPhase | None = None
        #: The current turn's final answer, once the transcript gave it.
        self.answer: str | None = None
        #: When the current turn began, by the row that began it (None: it gave no time).
        self.started_at: float | None = None
        #: Why the current turn failed, or what it was told at its usage limit.
        self.message: str | None = None
        #: Turns that ended before the current one began, since the last :meth:`report`.
        self._passed: list[TurnObservation] = []
        self._last_report: TurnObservation | None = None

    @property
    def observation(self) -> TurnObservation | None:
        if self.key is None or self.phase is None:
            return None
        answer = self.answer if self.phase is TurnPhase.COMPLETED else None
        message = self.message if self.phase in WITH_MESSAGE else None
        return TurnObservation(
            self.key, self.phase, message=message, answer=answer, started_at=self.started_at
        )

    def report(self) -> TurnObservation | None:
        """The current turn, carrying in ``before`` the turns that ended and were followed
        since the last report (so a reader polled every 0.5 s misses no turn's end)."""
        current = self._last_report = self.observation
        passed, self._passed = tuple(self._passed), []
        if current is None or not passed:
            return current
        return dataclasses.replace(current, before=passed)

    def begin(self, key: str, row: dict[str, object]) -> None:
        """Turn ``key`` begins at ``row`` (active, no answer yet, the row's timestamp)."""
        ended = self.observation
        # A turn whose end the last report already gave is not passed again.
        if (
            ended is not None
            and ended.key != key
            and ended.phase in ENDED
            and ended != self._last_report
        ):
            self._passed.append(ended)
            del self._passed[:-MAX_PASSED_TURNS]
        self.key, self.phase, self.answer, self.message = key, TurnPhase.ACTIVE, None, None
        self.started_at = row_time(row)

    def feed(self, line: bytes) -> None:
        """One whole line of the file; one that is not a JSON object is skipped."""
        row = decode_line(line)
        if row is not None:
            self.apply(row)

    def apply(self, row: dict[str, object]) -> None:
        raise NotImplementedError
