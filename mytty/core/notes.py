"""Pane status notes: a short self-report an agent attaches to its pane (semantics §8).

Notes live in memory only, keyed by pane, and never affect run state. A note is cleared
automatically when an inserted event says the pane's agent started, went idle or finished,
because the note most likely described work that is now over.
"""

from __future__ import annotations

import unicodedata

from mytty.core.events import AgentEvent, AgentEventKind
from mytty.core.ids import SurfaceId

STATUS_MAX_SCALARS = 100

#: Inserted events of these kinds clear the pane's note, whichever run or provider sent them
#: and whether or not the reducer applied them.
CLEARING_KINDS = frozenset(
    {
        AgentEventKind.IDLE,
        AgentEventKind.STARTED,
        AgentEventKind.SUCCEEDED,
        AgentEventKind.FAILED,
        AgentEventKind.DISCONNECTED,
    }
)

# Cc and Cf as the spec says; Cs too, since a lone surrogate is not a Unicode scalar at all
# (json.loads can produce one from a "\\ud800" escape).
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})


def validate_status(text: object) -> str | None:
    """Return why ``text`` is not a valid status note, or None when it is.

    Valid: a non-empty string of at most 100 Unicode scalars with no control or format
    characters (so no newlines and no zero-width joiners). Clearing is a separate operation,
    never an empty string.
    """
    if not isinstance(text, str):
        return "status must be a string"
    if not text:
        return "status must not be empty"
    if len(text) > STATUS_MAX_SCALARS:
        return f"status must be at most {STATUS_MAX_SCALARS} characters"
    for ch in text:
        if unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            return f"status must not contain control or format characters (U+{ord(ch):04X})"
    return None


class StatusNotes:
    """The current note of each pane."""

    __slots__ = ("_notes",)

    def __init__(self) -> None:
        self._notes: dict[SurfaceId, str] = {}

    def set(self, pane: SurfaceId, text: str) -> None:
        """Set the pane's note. Raises ValueError (with the reason) for an invalid note."""
        problem = validate_status(text)
        if problem is not None:
            raise ValueError(problem)
        self._notes[pane] = text

    def clear(self, pane: SurfaceId) -> bool:
        """Remove the pane's note; True when there was one."""
        return self._notes.pop(pane, None) is not None

    def get(self, pane: SurfaceId) -> str | None:
        return self._notes.get(pane)

    def observe(self, event: AgentEvent) -> bool:
        """Apply the automatic clearing rule for one *inserted* event; True if a note went away.

        The caller must not pass duplicates: a retried event does not clear a newer note.
        """
        if event.kind not in CLEARING_KINDS:
            return False
        return self.clear(event.surface_id)

    def forget_pane(self, pane: SurfaceId) -> None:
        """Drop everything about a pane that is gone."""
        self._notes.pop(pane, None)

    def snapshot(self) -> dict[SurfaceId, str]:
        """A copy of every note, by pane."""
        return dict(self._notes)
