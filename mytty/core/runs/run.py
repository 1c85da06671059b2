"""One agent run as the reducer derives it, and what applying one event to the book did.

A run is one prompt/turn of one provider on one pane, keyed only by its run id and pinned to the
pane and provider of the first event seen for it (semantics §1.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mytty.core.events import (
    ACTIVE_STATES,
    TERMINAL_STATES,
    AgentEvent,
    AgentProvider,
    AgentRunState,
)
from mytty.core.ids import RunId, SurfaceId


@dataclass(frozen=True, slots=True)
class AgentRun:
    """One agent run (one prompt/turn) as derived by the reducer."""

    id: RunId
    surface_id: SurfaceId
    provider: AgentProvider
    session_id: str | None
    state: AgentRunState
    started_at: float | None
    updated_at: float | None
    message: str | None
    accepted_event_count: int
    #: The agent's final answer, from the latest applied event that carried one (a Stop).
    last_assistant_message: str | None = None
    #: agent_ids of every subagent this turn started (SubagentStart), so the task-notification
    #: prompt that reports one can be folded back into this run.
    subagents: frozenset[str] = frozenset()
    #: The subagents started and not yet stopped (no SubagentStop, no task-notification yet).
    #: While any is live a Stop does not finish the run.
    live_subagents: frozenset[str] = frozenset()
    #: Run ids of the task-notification turns folded into this run; their later events land here.
    continuations: frozenset[RunId] = frozenset()
    #: The turn's own end (a Stop) came while a subagent it started was live. Codex owes no
    #: later turn, so the SubagentStop of the last one ends the run then.
    root_ended: bool = False

    @property
    def live_subagent_count(self) -> int:
        return len(self.live_subagents)

    @property
    def is_active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def is_terminal(self) -> bool:
        return self.state in TERMINAL_STATES


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """What :meth:`~mytty.core.runs.book.RunBook.apply` did with one event.

    ``previous_state`` is None when the event created the run. ``run`` is the run after the event
    (unchanged when the event conflicted or was ignored) and None only for a duplicate, an
    event with the wrong schema version, or a Codex subagent's event no turn was found for.
    """

    duplicate: bool
    conflict: bool
    applied: bool
    previous_state: AgentRunState | None
    run: AgentRun | None
    #: A run the event's new run pushed out of the book (see
    #: :data:`~mytty.core.runs.retention.MAX_RUNS_PER_PANE`).
    dropped: RunId | None = None

    @property
    def rejected(self) -> bool:
        """True for a first-seen event refused before reaching any run (wrong schema version,
        or a Codex subagent's event that no turn can be found for)."""
        return not self.duplicate and self.run is None


def conflicts(run: AgentRun, event: AgentEvent) -> bool:
    """True when ``event`` cannot belong to ``run``: another pane, another provider, or another
    session where both name one (semantics §1.3 step 2)."""
    return (
        run.surface_id != event.surface_id
        or run.provider != event.provider
        or (
            run.session_id is not None
            and event.session_id is not None
            and run.session_id != event.session_id
        )
    )


def updated_or_past(run: AgentRun) -> float:
    """The run's updatedAt; a run that never accepted an event counts as the distant past."""
    return run.updated_at if run.updated_at is not None else -math.inf
