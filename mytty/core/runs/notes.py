"""Pane status notes: a short self-report an agent attaches to its pane (semantics §8).

Notes live in memory only, keyed by pane, and never affect run state. A note is cleared
automatically when an inserted event says the pane's agent started, went idle or finished,
because the note most likely described work that is now over.
"""

from __future__ import annotations

from mytty.core.events import AgentEvent, AgentEventKind
from mytty.core.ids import SurfaceId
from mytty.core.validation import validate_status

#: Inserted events of these kinds clear the pane's note, whichever run or provider sent them
#: and whether or not the reducer applied them.
CLEARING_KINDS = frozenset(
    {
        AgentEventKind.IDLE,
        AgentEventKind.STARTED,
        AgentEventKind.SUCCEEDED,
        AgentEventKind.FAILED,
        AgentEventKind.DISCONNECTED,
        # The turn ended at a usage limit: what the agent said it was doing is over too.
        AgentEventKind.LIMIT_REACHED,
    }
)


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
