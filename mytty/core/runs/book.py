"""The agent run model: the transition table, the reducer, and the rules that synthesize events.

A run is one prompt/turn of one provider on one pane, keyed only by its run id and pinned to the
pane and provider of the first event seen for it. The whole event log is replayed in *arrival*
order (never ``occurredAt`` order) through :meth:`RunBook.apply`; that replay is the only way run
state is ever derived, so the daemon's live view and a restart's reload always agree.

Everything here is pure: time comes in as arguments and nothing touches the store or tmux.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Protocol

from mytty.core.events import (
    ACTIVE_STATES,
    SCHEMA_VERSION,
    SYNTHESIZED_PREFIX,
    TERMINAL_STATES,
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    AgentRunState,
)
from mytty.core.ids import RunId, SurfaceId, stable_uuid

#: hookName of the idle events that close a Claude run replaced by a newer prompt.
SUPERSEDED_HOOK_NAME = "mytty.runSuperseded"
#: hookName of the disconnected events that close runs left active by a previous controller.
STARTUP_SWEEP_HOOK_NAME = "mytty.startupSweep"
#: How long finished runs and resolved attention items are kept (seconds).
RETENTION_SECONDS = 86400.0
#: At most this many runs per pane are kept in memory. A pane collects a run per prompt, and
#: one pane's capability could otherwise make thousands (issue 15 #6: 20,000 runs in 15 s made
#: ``list`` 16x slower). Past the bound the oldest run that is not active goes (the oldest run
#: of all when every one is active), with its attention items; its events stay in the store.
MAX_RUNS_PER_PANE = 100

#: hookNames of the events that track a Claude run's subagents; their ``toolUseID`` carries the
#: subagent's ``agent_id`` (the hook adapter puts it there).
SUBAGENT_START_HOOK_NAME = "SubagentStart"
SUBAGENT_STOP_HOOK_NAME = "SubagentStop"
#: hookName of a prompt. A ``running`` (not ``started``) one is Claude's synthetic
#: ``<task-notification>`` prompt: it continues the turn that started the subagent whose
#: ``agent_id`` its ``toolUseID`` names, instead of opening (and superseding) a run of its own.
PROMPT_HOOK_NAME = "UserPromptSubmit"
#: Codex: the ``toolUseID`` of every event a subagent's thread fires, and of the ``spawn_agent``
#: call that started it, is this prefix plus the subagent's ``agent_id`` (mytty.hook.adapters.codex).
CODEX_SUBAGENT_PREFIX = "agent:"
CODEX_SPAWN_TOOL = "spawn_agent"
_TOOL_HOOK_NAME = "PostToolUse"

_S = AgentRunState
_K = AgentEventKind


def _build_transitions() -> Mapping[tuple[AgentRunState, AgentEventKind], AgentRunState]:
    table: dict[tuple[AgentRunState, AgentEventKind], AgentRunState] = {}
    for state in AgentRunState:
        # idle is the universal reset: it even re-opens terminal runs, so a pane can start over.
        table[(state, _K.IDLE)] = _S.IDLE
        if state != _S.DISCONNECTED:
            table[(state, _K.DISCONNECTED)] = _S.DISCONNECTED
    for state in (_S.UNKNOWN, _S.IDLE):
        table[(state, _K.STARTED)] = _S.RUNNING
        table[(state, _K.RUNNING)] = _S.RUNNING
    for state in (_S.WAITING_INPUT, _S.WAITING_APPROVAL):
        table[(state, _K.RUNNING)] = _S.RUNNING
    table[(_S.RUNNING, _K.INPUT_REQUESTED)] = _S.WAITING_INPUT
    table[(_S.RUNNING, _K.APPROVAL_REQUESTED)] = _S.WAITING_APPROVAL
    table[(_S.RUNNING, _K.SUCCEEDED)] = _S.SUCCEEDED
    table[(_S.RUNNING, _K.FAILED)] = _S.FAILED
    return MappingProxyType(table)


#: (current state, event kind) → next state. A missing pair means the event is ignored.
TRANSITIONS: Mapping[tuple[AgentRunState, AgentEventKind], AgentRunState] = _build_transitions()

#: Ranking used by :meth:`RunBook.most_relevant`; higher wins.
STATE_PRIORITY: Mapping[AgentRunState, int] = MappingProxyType(
    {
        _S.WAITING_APPROVAL: 7,
        _S.WAITING_INPUT: 6,
        _S.FAILED: 5,
        _S.DISCONNECTED: 4,
        _S.RUNNING: 3,
        _S.SUCCEEDED: 2,
        _S.UNKNOWN: 1,
        _S.IDLE: 1,
    }
)

# A fresh run (or a restart after idle) gets a new startedAt when it moves to running.
_RESTART_STATES = frozenset({_S.UNKNOWN, _S.IDLE})


def transition(state: AgentRunState, kind: AgentEventKind) -> AgentRunState | None:
    """Return the state a run in ``state`` moves to on an event of ``kind``, or None if ignored."""
    return TRANSITIONS.get((state, kind))


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
    """What :meth:`RunBook.apply` did with one event.

    ``previous_state`` is None when the event created the run. ``run`` is the run after the event
    (unchanged when the event conflicted or was ignored) and None only for a duplicate, an
    event with the wrong schema version, or a Codex subagent's event no turn was found for.
    """

    duplicate: bool
    conflict: bool
    applied: bool
    previous_state: AgentRunState | None
    run: AgentRun | None
    #: A run the event's new run pushed out of the book (see MAX_RUNS_PER_PANE).
    dropped: RunId | None = None

    @property
    def rejected(self) -> bool:
        """True for a first-seen event refused before reaching any run (wrong schema version,
        or a Codex subagent's event that no turn can be found for)."""
        return not self.duplicate and self.run is None


_DUPLICATE = ApplyResult(
    duplicate=True, conflict=False, applied=False, previous_state=None, run=None
)
_REJECTED = ApplyResult(
    duplicate=False, conflict=False, applied=False, previous_state=None, run=None
)


def _conflicts(run: AgentRun, event: AgentEvent) -> bool:
    return (
        run.surface_id != event.surface_id
        or run.provider != event.provider
        or (
            run.session_id is not None
            and event.session_id is not None
            and run.session_id != event.session_id
        )
    )


def _updated_or_past(run: AgentRun) -> float:
    # A run that never accepted an event sorts as if it were updated in the distant past.
    return run.updated_at if run.updated_at is not None else -math.inf


def _relevance(run: AgentRun) -> tuple[int, float, float, str]:
    priority = float(STATE_PRIORITY[run.state])
    if run.is_active:
        return (1, priority, _updated_or_past(run), run.id)
    return (0, _updated_or_past(run), priority, run.id)


class RunBook:
    """Every known run plus the set of event ids already seen. In memory, no I/O."""

    __slots__ = (
        "_aliases",
        "_by_surface",
        "_event_ids_by_run",
        "_max_per_pane",
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

    def __len__(self) -> int:
        return len(self._runs)

    def apply(self, event: AgentEvent) -> ApplyResult:
        """Reduce one event into the book (semantics §1.3) and report what happened."""
        if event.id in self._seen:
            return _DUPLICATE
        # The id is consumed before any other check: a rejected event can never be retried in.
        self._seen.add(event.id)
        if event.schema_version != SCHEMA_VERSION:
            self._event_ids_by_run.setdefault(event.run_id, {})[event.id] = None
            return _REJECTED
        own_run_id = event.run_id
        root = self._continued_run(event)
        if root is not None:
            event = replace(event, run_id=root)
        elif _is_codex_subagent_event(event) and event.run_id not in self._runs:
            # A subagent's event whose spawning turn is unknown (its spawn_agent result was
            # not seen, or came later): never a run of its own.
            self._event_ids_by_run.setdefault(event.run_id, {})[event.id] = None
            return _REJECTED
        self._event_ids_by_run.setdefault(event.run_id, {})[event.id] = None

        existing = self._runs.get(event.run_id)
        if existing is None:
            run = AgentRun(
                id=event.run_id,
                surface_id=event.surface_id,
                provider=event.provider,
                session_id=None,
                state=_S.UNKNOWN,
                started_at=None,
                updated_at=None,
                message=None,
                accepted_event_count=0,
            )
            previous_state: AgentRunState | None = None
        else:
            if _conflicts(existing, event):
                return ApplyResult(
                    duplicate=False,
                    conflict=True,
                    applied=False,
                    previous_state=existing.state,
                    run=existing,
                )
            run = existing
            previous_state = existing.state

        if run.session_id is None and event.session_id is not None:
            # Adopted even when the transition below is ignored.
            run = replace(run, session_id=event.session_id)
        # Subagent bookkeeping happens even when the transition below is ignored.
        run = _track_subagents(run, event, own_run_id)

        kind = event.kind
        message = event.message
        if kind == _K.SUCCEEDED and run.live_subagents:
            # The root turn ended but a subagent it started is still live: keep the run open.
            kind = _K.RUNNING
            if event.provider == AgentProvider.CODEX:
                # Kept though the state does not change: the answer is the turn's own, and
                # the run ends with it at the last SubagentStop (no later Stop comes).
                message = message or _waiting_for(len(run.live_subagents))
                answer = event.last_assistant_message or run.last_assistant_message
                run = replace(run, root_ended=True, message=message, last_assistant_message=answer)
        elif _ends_codex_turn_at_last_subagent(run, event):
            kind = _K.SUCCEEDED
        elif run.root_ended and run.live_subagents and message is None:
            message = _waiting_for(len(run.live_subagents))  # still waiting, maybe for fewer
            run = replace(run, message=message)
        new_state = transition(run.state, kind)
        if new_state is None:
            return ApplyResult(
                duplicate=False,
                conflict=False,
                applied=False,
                previous_state=previous_state,
                run=run,
                dropped=self._store(run),
            )

        starts = run.state in _RESTART_STATES and new_state == _S.RUNNING
        run = replace(
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
        return ApplyResult(
            duplicate=False,
            conflict=False,
            applied=True,
            previous_state=previous_state,
            run=run,
            dropped=self._store(run),
        )

    def _continued_run(self, event: AgentEvent) -> RunId | None:
        """The run ``event`` is folded into: an alias already made, or a task-notification's
        root turn (the run of the same pane and provider that started the named subagent)."""
        alias = self._aliases.get(event.run_id)
        if alias is not None:
            return alias
        if _is_codex_subagent_event(event) and event.run_id not in self._runs:
            runs = [
                r
                for r in self.runs_for(event.surface_id, event.provider)
                if not _conflicts(r, event)
            ]
            for run in runs:
                if event.tool_use_id in run.subagents:
                    return run.id
            if event.hook_name == SUBAGENT_START_HOOK_NAME and event.session_id is not None:
                # The subagent's thread can report its start before the parent's hook for the
                # spawn_agent call does (seen under load): the parent is the session's turn
                # that is running now (Codex runs one turn of a session at a time).
                active = [r for r in runs if r.is_active and r.session_id == event.session_id]
                if active:
                    return max(active, key=_updated_or_past).id
            return None
        if not _is_task_notification(event) or event.run_id in self._runs:
            return None
        for run in self.runs_for(event.surface_id, event.provider):
            if event.tool_use_id in run.subagents and not _conflicts(run, event):
                return run.id
        return None

    def _store(self, run: AgentRun) -> RunId | None:
        """Keep ``run``; return the id of a run dropped to stay within the per-pane bound."""
        new = run.id not in self._runs
        self._runs[run.id] = run
        for alias in run.continuations:
            self._aliases[alias] = run.id
        bucket = self._by_surface.setdefault(run.surface_id, {})
        bucket[run.id] = None
        if not new or len(bucket) <= self._max_per_pane:
            return None
        victim = next(
            (rid for rid in bucket if rid != run.id and not self._runs[rid].is_active),
            next(iter(bucket)),
        )
        self.forget_run(victim)
        return victim

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
        runs = self.runs_for_surface(surface_id)
        if not runs:
            return None
        return max(runs, key=_relevance)

    def latest_run(self, surface_id: SurfaceId, provider: AgentProvider) -> AgentRun | None:
        """The provider's run on the pane with the newest updatedAt (ties: greater run id).

        Meant for session lookups only; ``list`` and ``wait`` use :meth:`most_relevant`.
        """
        runs = self.runs_for(surface_id, provider)
        if not runs:
            return None
        return max(runs, key=lambda run: (_updated_or_past(run), run.id))

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


def _is_task_notification(event: AgentEvent) -> bool:
    return (
        event.provider == AgentProvider.CLAUDE_CODE
        and event.kind == _K.RUNNING
        and event.hook_name == PROMPT_HOOK_NAME
        and event.tool_use_id is not None
    )


def _is_codex_subagent_event(event: AgentEvent) -> bool:
    """An event of a Codex subagent's thread (or the spawn_agent call that started one)."""
    return (
        event.provider == AgentProvider.CODEX
        and event.tool_use_id is not None
        and event.tool_use_id.startswith(CODEX_SUBAGENT_PREFIX)
    )


def _waiting_for(count: int) -> str:
    return f"Waiting for {count} subagent" + ("" if count == 1 else "s")


def _ends_codex_turn_at_last_subagent(run: AgentRun, event: AgentEvent) -> bool:
    """The SubagentStop of a Codex turn's last live subagent, after the turn's own Stop."""
    return (
        event.provider == AgentProvider.CODEX
        and event.hook_name == SUBAGENT_STOP_HOOK_NAME
        and run.root_ended
        and not run.live_subagents
        and run.is_active
    )


def _track_codex_subagents(run: AgentRun, event: AgentEvent) -> AgentRun:
    """Codex: ``spawn_agent``'s result names a subagent of this turn; its SubagentStart makes
    it live (only then: an install without the subagent hooks must not wait for a stop it
    never reports; a start folded in before the spawn's result names it too), its
    SubagentStop ends it."""
    agent = event.tool_use_id
    if agent is None or not _is_codex_subagent_event(event):
        return run
    if event.hook_name == _TOOL_HOOK_NAME and event.tool_name == CODEX_SPAWN_TOOL:
        return run if agent in run.subagents else replace(run, subagents=run.subagents | {agent})
    if event.hook_name == SUBAGENT_START_HOOK_NAME and run.is_active:
        return replace(
            run, subagents=run.subagents | {agent}, live_subagents=run.live_subagents | {agent}
        )
    if agent not in run.subagents:
        return run
    if event.hook_name == SUBAGENT_STOP_HOOK_NAME and agent in run.live_subagents:
        return replace(run, live_subagents=run.live_subagents - {agent})
    return run


def _track_subagents(run: AgentRun, event: AgentEvent, own_run_id: RunId) -> AgentRun:
    """``run`` after the subagent bookkeeping of ``event`` (SubagentStart/Stop, notification)."""
    agent = event.tool_use_id
    if own_run_id != run.id and own_run_id not in run.continuations:
        run = replace(run, continuations=run.continuations | {own_run_id})
    if event.provider == AgentProvider.CODEX:
        return _track_codex_subagents(run, event)
    if agent is None or event.provider != AgentProvider.CLAUDE_CODE:
        return run
    if event.hook_name == SUBAGENT_START_HOOK_NAME and event.kind == _K.RUNNING:
        if not run.is_active or agent in run.subagents:
            return run
        return replace(
            run, subagents=run.subagents | {agent}, live_subagents=run.live_subagents | {agent}
        )
    ends = event.hook_name == SUBAGENT_STOP_HOOK_NAME or _is_task_notification(event)
    if ends and agent in run.live_subagents:
        return replace(run, live_subagents=run.live_subagents - {agent})
    return run


def replay(events: Iterable[AgentEvent]) -> RunBook:
    """Build a fresh book from events in arrival order."""
    book = RunBook()
    for event in events:
        book.apply(event)
    return book


def _would_reach_run(book: RunBook, event: AgentEvent) -> bool:
    if book.seen(event.id) or event.schema_version != SCHEMA_VERSION:
        return False
    run = book.get(event.run_id)
    return run is None or not _conflicts(run, event)


def superseded_events(book: RunBook, event: AgentEvent) -> list[AgentEvent]:
    """The idle events that close older active Claude runs when a new prompt starts (§1.6).

    Applies only to a ``started`` event from claude-code whose hookName is not ``mytty.``-prefixed.
    Every *other* active run of the same pane and provider gets one idle event, which the caller
    applies (and stores) before ``event`` itself. Claude can hold a run open after Stop while
    background agents finish; its next prompt has a new prompt id, so without this the old run
    would stay active forever.

    Returns nothing for an event the book would not apply to a run anyway (already seen, wrong
    schema version, conflicting with its run): a retried hook must not close runs started since.
    Closing events whose id was already seen are left out too; applying them would be a no-op.
    """
    if event.kind != _K.STARTED or event.provider != AgentProvider.CLAUDE_CODE:
        return []
    if event.hook_name is not None and event.hook_name.startswith(SYNTHESIZED_PREFIX):
        return []
    if not _would_reach_run(book, event):
        return []
    closing: list[AgentEvent] = []
    for old in book.runs_for(event.surface_id, event.provider):
        # Cheap checks first: a pane collects many finished runs, and hashing an id for each
        # of them on every prompt dominated ingest time.
        if old.id == event.run_id or not old.is_active:
            continue
        event_id = stable_uuid("event", "superseded", old.id, event.run_id)
        if book.seen(event_id):
            continue
        closing.append(
            AgentEvent(
                id=event_id,
                run_id=old.id,
                surface_id=old.surface_id,
                provider=old.provider,
                kind=_K.IDLE,
                occurred_at=event.occurred_at,
                session_id=old.session_id,
                hook_name=SUPERSEDED_HOOK_NAME,
            )
        )
    return closing


def startup_sweep_events(
    book: RunBook, now: float, is_dead: Callable[[AgentRun], bool]
) -> list[AgentEvent]:
    """``disconnected`` events for active runs whose agent is gone (§1.7 step 3).

    The daemon decides deadness (pane gone, or pane back at its shell); unknown and idle runs are
    never swept. Ids are deterministic per run, and ids the book has already seen are skipped, so
    applying the result and sweeping again yields nothing.
    """
    sweep: list[AgentEvent] = []
    for run in book.all_runs():
        if not run.is_active:
            continue
        event_id = stable_uuid("event", "startup-sweep", run.id)
        if book.seen(event_id) or not is_dead(run):
            continue
        sweep.append(
            AgentEvent(
                id=event_id,
                run_id=run.id,
                surface_id=run.surface_id,
                provider=run.provider,
                kind=_K.DISCONNECTED,
                occurred_at=now,
                session_id=run.session_id,
                hook_name=STARTUP_SWEEP_HOOK_NAME,
            )
        )
    return sweep


class AttentionIndex(Protocol):
    """The part of the attention book that prune needs (kept abstract to avoid an import cycle)."""

    def actionable_for_run(self, run_id: RunId) -> bool: ...

    def anchors_for_run(self, run_id: RunId) -> list[float]: ...


class ForgettingAttentionIndex(AttentionIndex, Protocol):
    def forget_run(self, run_id: RunId) -> None: ...


def prunable_runs(
    book: RunBook,
    attention: AttentionIndex,
    now: float,
    retention: float = RETENTION_SECONDS,
) -> list[RunId]:
    """Ids of runs old enough to delete, in creation order (semantics §1.8, prune).

    A run qualifies when it is terminal (idle/succeeded/failed/disconnected), its updatedAt is
    more than ``retention`` seconds old, none of its attention items is actionable, and every
    item's retention anchor is more than ``retention`` seconds old.
    """
    prunable: list[RunId] = []
    for run in book.all_runs():
        if not run.is_terminal or run.updated_at is None:
            continue
        if now - run.updated_at <= retention:
            continue
        if attention.actionable_for_run(run.id):
            continue
        if all(now - anchor > retention for anchor in attention.anchors_for_run(run.id)):
            prunable.append(run.id)
    return prunable


def prune_runs(
    book: RunBook,
    attention: ForgettingAttentionIndex,
    now: float,
    retention: float = RETENTION_SECONDS,
) -> dict[RunId, list[str]]:
    """Forget every prunable run in both books; return run id → the event ids to delete."""
    pruned: dict[RunId, list[str]] = {}
    for run_id in prunable_runs(book, attention, now, retention):
        run = book.get(run_id)
        pruned[run_id] = book.event_ids_for_run(run_id)
        # The store keeps a folded-in turn's events under that turn's own run id.
        for alias in run.continuations if run is not None else ():
            pruned.setdefault(alias, [])
        book.forget_run(run_id)
        attention.forget_run(run_id)
    return pruned
