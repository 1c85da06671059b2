"""The run book: every known run, and the reducer that folds events into it.

The whole event log is replayed in *arrival* order (never ``occurredAt`` order) through
:meth:`RunBook.apply`; that replay is the only way run state is ever derived, so the daemon's
live view and a restart's reload always agree. The state machine itself is
:mod:`mytty.core.runs.table`; subagent folding is :mod:`mytty.core.runs.subagents`.

Everything here is pure: time comes in as arguments and nothing touches the store or tmux.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from mytty.core.events import SCHEMA_VERSION, AgentEvent, AgentProvider, AgentRunState
from mytty.core.ids import RunId, SurfaceId
from mytty.core.runs.retention import MAX_RUNS_PER_PANE, overflow_victim
from mytty.core.runs.run import AgentRun, ApplyResult, conflicts, updated_or_past
from mytty.core.runs.subagents import (
    folds_into_another_run,
    hold_open_for_subagents,
    is_codex_subagent_event,
    root_turn,
    track_subagents,
)
from mytty.core.runs.table import RESTART_STATES, STATE_PRIORITY, transition

_DUPLICATE = ApplyResult(
    duplicate=True, conflict=False, applied=False, previous_state=None, run=None
)
_REJECTED = ApplyResult(
    duplicate=False, conflict=False, applied=False, previous_state=None, run=None
)


class RunBook:
    """Every known run plus the set of event ids already seen. In memory, no I/O."""

    __slots__ = (
        "_active",
        "_aliases",
        "_by_surface",
        "_event_ids_by_run",
        "_max_per_pane",
        "_relevant",
        "_resting",
        "_runs",
        "_seen",
    )

    def __init__(self, max_runs_per_pane: int = MAX_RUNS_PER_PANE) -> None:
        self._max_per_pane = max_runs_per_pane
        self._runs: dict[RunId, AgentRun] = {}
        # Insertion-ordered "sets" so listings follow creation order deterministically.
        self._by_surface: dict[SurfaceId, dict[RunId, None]] = {}
        self._seen: set[str] = set()
        self._event_ids_by_run: dict[RunId, dict[str, None]] = {}
        # Continuation run id → the run it was folded into (rebuilt from runs' continuations).
        self._aliases: dict[RunId, RunId] = {}
        # most_relevant's answer per pane, kept in step as its runs change (_keep_relevant):
        # asked per pane on every tmux publish and list, it was a scan of all the pane's runs.
        self._relevant: dict[SurfaceId, AgentRun] = {}
        # The same for the pane's inactive runs only, and how many runs of a pane are active:
        # when a pane's cached run finishes and none of its runs is active, the new answer is
        # the best inactive run, known without a scan (once per finished turn, over up to
        # MAX_RUNS_PER_PANE runs, it was).
        self._resting: dict[SurfaceId, AgentRun] = {}
        self._active: dict[SurfaceId, int] = {}

    def __len__(self) -> int:
        return len(self._runs)

    def apply(self, event: AgentEvent) -> ApplyResult:
        """Reduce one event into the book (semantics §1.3) and report what happened."""
        if event.id in self._seen:
            return _DUPLICATE
        # The id is consumed before any other check: a rejected event can never be retried in.
        self._seen.add(event.id)
        own_run_id = event.run_id
        routed = self._route(event)
        if routed is None:
            return _REJECTED
        event = routed
        existing = self._runs.get(event.run_id)
        if existing is not None and conflicts(existing, event):
            return ApplyResult(
                duplicate=False,
                conflict=True,
                applied=False,
                previous_state=existing.state,
                run=existing,
            )
        run = _new_run(event) if existing is None else existing
        if run.session_id is None and event.session_id is not None:
            # Adopted even when the transition below is ignored.
            run = replace(run, session_id=event.session_id)
        # Subagent bookkeeping happens even when the transition below is ignored.
        run = track_subagents(run, event, own_run_id)
        run, kind, message = hold_open_for_subagents(run, event)
        new_state = transition(run.state, kind)
        if new_state is not None:
            run = _advanced(run, event, new_state, message)
        return ApplyResult(
            duplicate=False,
            conflict=False,
            applied=new_state is not None,
            previous_state=None if existing is None else existing.state,
            run=run,
            dropped=self._store(run),
        )

    def _route(self, event: AgentEvent) -> AgentEvent | None:
        """``event`` aimed at the run it lands on (the root turn of a folded-in one), or None
        when it is refused: a wrong schema version, or a Codex subagent's event whose spawning
        turn is unknown (its spawn_agent result was not seen, or came later), which is never a
        run of its own. Either way the id is recorded under that run id, for prune."""
        refused = event.schema_version != SCHEMA_VERSION
        if not refused:
            root = self._continued_run(event)
            if root is not None:
                event = replace(event, run_id=root)
            else:
                refused = is_codex_subagent_event(event) and event.run_id not in self._runs
        self._event_ids_by_run.setdefault(event.run_id, {})[event.id] = None
        return None if refused else event

    def _continued_run(self, event: AgentEvent) -> RunId | None:
        """The run ``event`` is folded into: an alias already made, or the root turn (the run of
        the same pane and provider that started the subagent the event names)."""
        alias = self._aliases.get(event.run_id)
        if alias is not None:
            return alias
        if event.run_id in self._runs or not folds_into_another_run(event):
            return None
        return root_turn(event, self.runs_for(event.surface_id, event.provider))

    def _store(self, run: AgentRun) -> RunId | None:
        """Keep ``run``; return the id of a run dropped to stay within the per-pane bound."""
        old = self._runs.get(run.id)
        new = old is None
        self._runs[run.id] = run
        self._keep_relevant(old, run)
        for alias in run.continuations:
            self._aliases[alias] = run.id
        bucket = self._by_surface.setdefault(run.surface_id, {})
        bucket[run.id] = None
        if not new or len(bucket) <= self._max_per_pane:
            return None
        victim = overflow_victim(self.runs_for_surface(run.surface_id), run.id)
        self.forget_run(victim)
        return victim

    def _keep_relevant(self, old: AgentRun | None, run: AgentRun) -> None:
        """Keep most_relevant's caches and counts in step with ``run``'s change (from ``old``).

        Per event, a scan of the pane's runs cost O(runs kept); now only the cached run
        growing less relevant with another run of the pane active needs one.
        """
        if old is not None and old.is_active:
            self._active[old.surface_id] -= 1
        if run.is_active:
            self._active[run.surface_id] = self._active.get(run.surface_id, 0) + 1
        if old is not None and old.surface_id != run.surface_id:
            for cache in (self._relevant, self._resting):
                cache.pop(old.surface_id, None)
                cache.pop(run.surface_id, None)
            return
        _keep_best(self._relevant, run)
        resting = self._resting.get(run.surface_id)
        if run.is_active:
            if resting is not None and resting.id == run.id:  # it left the inactive runs
                del self._resting[run.surface_id]
        else:
            _keep_best(self._resting, run)

    def restore(self, run: AgentRun) -> RunId | None:
        """Put back a run from a snapshot (its event ids are the store's to know)."""
        return self._store(run)

    def get(self, run_id: RunId) -> AgentRun | None:
        """The run with this id, or None."""
        return self._runs.get(run_id)

    def seen(self, event_id: str) -> bool:
        """True when an event with this id was already offered to :meth:`apply`."""
        return event_id in self._seen

    def all_runs(self) -> list[AgentRun]:
        """Every run, in creation order."""
        return list(self._runs.values())

    def runs_for_surface(self, surface_id: SurfaceId) -> list[AgentRun]:
        """Every run pinned to this pane, any provider, in creation order."""
        return [self._runs[rid] for rid in self._by_surface.get(surface_id, {})]

    def runs_for(self, surface_id: SurfaceId, provider: AgentProvider) -> list[AgentRun]:
        """The runs of one provider on one pane, in creation order."""
        return [run for run in self.runs_for_surface(surface_id) if run.provider == provider]

    def most_relevant(self, surface_id: SurfaceId) -> AgentRun | None:
        """The run that speaks for the pane in ``list`` and pane ``wait`` (semantics §1.5).

        Any active run beats every inactive one. Among active runs the higher state priority
        wins, then the later updatedAt; among inactive runs the later updatedAt (None is the
        distant past) wins, then the higher priority. Remaining ties go to the greater run id.
        """
        known = self._relevant.get(surface_id)
        if known is not None:
            return known
        if not self._active.get(surface_id):
            known = self._resting.get(surface_id)
            if known is not None:
                self._relevant[surface_id] = known
                return known
        runs = self.runs_for_surface(surface_id)
        if not runs:
            return None
        best = self._relevant[surface_id] = max(runs, key=_relevance)
        if not best.is_active:  # then every run is inactive
            self._resting[surface_id] = best
        return best

    def latest_run(self, surface_id: SurfaceId, provider: AgentProvider) -> AgentRun | None:
        """The provider's run on the pane with the newest updatedAt (ties: greater run id).

        Meant for session lookups only; ``list`` and ``wait`` use :meth:`most_relevant`.
        """
        runs = self.runs_for(surface_id, provider)
        if not runs:
            return None
        return max(runs, key=lambda run: (updated_or_past(run), run.id))

    def event_ids_for_run(self, run_id: RunId) -> list[str]:
        """Ids of every non-duplicate event offered for this run id, in arrival order."""
        return list(self._event_ids_by_run.get(run_id, {}))

    def forget_run(self, run_id: RunId, event_ids: Iterable[str] = ()) -> None:
        """Drop a run and forget its event ids (used by prune).

        Forgets the ids this book recorded for the run plus any extra ``event_ids`` given, so a
        re-delivered event of a pruned run is accepted again, as in the original.
        """
        run = self._runs.pop(run_id, None)
        if run is not None:
            if run.is_active:
                self._active[run.surface_id] -= 1
            # Only the best run's going changes which run is best.
            for cache in (self._relevant, self._resting):
                if (best := cache.get(run.surface_id)) is not None and best.id == run_id:
                    del cache[run.surface_id]
            for alias in run.continuations:
                self._aliases.pop(alias, None)
            surface_runs = self._by_surface.get(run.surface_id)
            if surface_runs is not None:
                surface_runs.pop(run_id, None)
                if not surface_runs:
                    del self._by_surface[run.surface_id]
        for event_id in self._event_ids_by_run.pop(run_id, {}):
            self._seen.discard(event_id)
        for event_id in event_ids:
            self._seen.discard(event_id)


def replay(events: Iterable[AgentEvent]) -> RunBook:
    """Build a fresh book from events in arrival order."""
    book = RunBook()
    for event in events:
        book.apply(event)
    return book


def _new_run(event: AgentEvent) -> AgentRun:
    """The run an event's unseen run id starts as: pinned to its pane and provider, unknown."""
    return AgentRun(
        id=event.run_id,
        surface_id=event.surface_id,
        provider=event.provider,
        session_id=None,
        state=AgentRunState.UNKNOWN,
        started_at=None,
        updated_at=None,
        message=None,
        accepted_event_count=0,
    )


def _advanced(
    run: AgentRun, event: AgentEvent, new_state: AgentRunState, message: str | None
) -> AgentRun:
    """``run`` after an applied transition (semantics §1.3 step 4): the message is overwritten
    even with None; startedAt moves only on a fresh start or a restart after idle."""
    starts = run.state in RESTART_STATES and new_state == AgentRunState.RUNNING
    return replace(
        run,
        state=new_state,
        started_at=event.occurred_at if starts else run.started_at,
        updated_at=event.occurred_at,
        message=message,
        accepted_event_count=run.accepted_event_count + 1,
        last_assistant_message=(
            event.last_assistant_message
            if event.last_assistant_message is not None
            else run.last_assistant_message
        ),
    )


def _keep_best(cache: dict[SurfaceId, AgentRun], run: AgentRun) -> None:
    """Keep ``cache``'s answer for ``run``'s pane after ``run`` changed, when one comparison
    can: the cached run beats every other one, so a changed other run only has to be
    compared with it; the cached run itself growing less relevant drops the answer."""
    known = cache.get(run.surface_id)
    if known is None:
        return
    if known.id == run.id:
        if _relevance(run) >= _relevance(known):
            cache[run.surface_id] = run
        else:
            del cache[run.surface_id]
    elif _relevance(run) > _relevance(known):
        cache[run.surface_id] = run


def _relevance(run: AgentRun) -> tuple[int, float, float, str]:
    priority = float(STATE_PRIORITY[run.state])
    if run.is_active:
        return (1, priority, updated_or_past(run), run.id)
    return (0, updated_or_past(run), priority, run.id)
