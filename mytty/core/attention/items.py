"""Attention items: the things a human (or the lead agent) should look at.

Policy (the issue's, which deliberately differs from the original's code):

- Items come only from events the reducer *applied*; the item id is that event's id.
  - ``approval-requested`` → ``approval-request``; ``input-requested`` → ``input-request``;
  - ``failed`` → ``failure``;
  - ``disconnected`` → ``disconnect``, but only when the run was active (running/waiting-*)
    just before. A provider ending a run that had already finished, gone idle or never started
    (e.g. Claude's SessionEnd on its session marker run) is a normal exit, not an interruption;
  - ``succeeded`` → ``completion`` only for a run that lasted at least five minutes
    (updatedAt - startedAt ≥ 300 s); short successes are routine and would drown the inbox.
- One item comes from the job tracker instead of an event: a spawned job that ends
  ``launch-failed`` → ``launch-failure`` (:meth:`AttentionBook.add_launch_failure`). No run
  exists then, so the item's id and ``run_id`` are the job's id. The job is stored and
  survives a restart (still ``launch-failed``); this item lives in memory and does not.
- A job whose worker waits at its sign-in screen (``waiting-input``, "not signed in") adds an
  ``input-request`` about the job (:meth:`AttentionBook.add_sign_in`); the job registry
  acknowledges it when the job leaves that state.
- ``limit-reached`` → ``usage-limit`` (a mytty addition): one item per park, not a failure; like
  an outcome it is resolved when a run starts on the pane (the job went on). A job held after
  too many parks in a row gets a second one from the limits service
  (:meth:`AttentionBook.add_limit_hold`, keyed by the job and its park).
- ``agent spawn --budget-tokens N`` adds ``budget`` items from usage instead of an event
  (:meth:`AttentionBook.add_budget_item`): one when the job reaches 80 % of N, one at 100 %
  (when mytty interrupts the worker). Like ``launch-failure`` their ``run_id`` is the job's id;
  nothing resolves them but an acknowledgement (the worker's next turn is no answer to them).
- ``mytty resume`` adds a ``resume-stopped`` item when it gives up after three failed starts
  in a row (:meth:`AttentionBook.add_resume_stopped`), on the pane of the last job that failed
  (its ``run_id`` is that job's id). Like ``budget``, only an acknowledgement retires it.
- Resolution (``resolved_at`` = the resolving event's occurredAt):
  - an open request item is resolved by the next applied event on the same run whose previous
    state was waiting-input/waiting-approval (the agent moved on, whatever the answer was);
  - an open failure/disconnect/completion item is resolved when a run on the same pane, any
    provider, starts (an applied event taking a run from unknown/idle to running): the user has
    visibly moved on. Otherwise only :meth:`AttentionBook.acknowledge` retires it.
- The controller acknowledges the open items of a pane that is gone (``AgentHub.retire_items``):
  nothing can answer them there.
- An item is actionable while neither resolved nor acknowledged. Once it is, it stays visible
  for 24 h counted from the earlier of the two times, then :meth:`AttentionBook.prune` drops it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TypeVar

from mytty.core.events import (
    ACTIVE_STATES,
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    AgentRunState,
)
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.runs.retention import RETENTION_SECONDS
from mytty.core.runs.run import AgentRun, ApplyResult

K = TypeVar("K", RunId, SurfaceId)

#: A success must have run at least this long (seconds) to earn a completion item.
LONG_RUN_SECONDS = 300.0


class AttentionKind(StrEnum):
    APPROVAL_REQUEST = "approval-request"
    INPUT_REQUEST = "input-request"
    FAILURE = "failure"
    DISCONNECT = "disconnect"
    COMPLETION = "completion"
    LAUNCH_FAILURE = "launch-failure"
    #: ``agent spawn --budget-tokens``: the job used 80 % (then 100 %) of its token budget.
    BUDGET = "budget"
    #: ``mytty resume`` stopped after three failed starts in a row (admission's pacing).
    RESUME_STOPPED = "resume-stopped"
    #: The run stopped at its provider account's usage limit; the job is parked.
    USAGE_LIMIT = "usage-limit"


#: What an item asks of the human, in a word or two: ``@mytty_attention``, the popup, ``mytty
#: ls`` and ``mytty attention`` all say it the same way.
NEED_WORDS: dict[str, str] = {
    AttentionKind.APPROVAL_REQUEST.value: "approval",
    AttentionKind.INPUT_REQUEST.value: "question",
    AttentionKind.FAILURE.value: "failure",
    AttentionKind.DISCONNECT.value: "disconnected",
    AttentionKind.COMPLETION.value: "finished",
    AttentionKind.LAUNCH_FAILURE.value: "not started",
    AttentionKind.BUDGET.value: "budget",
    AttentionKind.RESUME_STOPPED.value: "resume halt",
    AttentionKind.USAGE_LIMIT.value: "limited",
}


def need_word(kind: str) -> str:
    """The word for an item kind (an unknown kind is shown as itself)."""
    return NEED_WORDS.get(kind, kind)


REQUEST_KINDS = frozenset({AttentionKind.APPROVAL_REQUEST, AttentionKind.INPUT_REQUEST})

_WAITING_STATES = frozenset({AgentRunState.WAITING_INPUT, AgentRunState.WAITING_APPROVAL})
_RESTART_STATES = frozenset({None, AgentRunState.UNKNOWN, AgentRunState.IDLE})


@dataclass(frozen=True, slots=True)
class AttentionItem:
    id: str  # the creating event's id
    surface_id: SurfaceId
    run_id: RunId
    provider: AgentProvider
    kind: AttentionKind
    message: str | None
    created_at: float
    resolved_at: float | None = None
    acknowledged_at: float | None = None

    @property
    def actionable(self) -> bool:
        """Neither resolved nor acknowledged."""
        return self.resolved_at is None and self.acknowledged_at is None

    @property
    def retention_anchor(self) -> float | None:
        """When the item stopped being actionable (the earlier of the two), or None if it is."""
        times = [t for t in (self.resolved_at, self.acknowledged_at) if t is not None]
        return min(times) if times else None

    def expired(self, now: float, retention: float = RETENTION_SECONDS) -> bool:
        """True once the item has been non-actionable for more than ``retention`` seconds."""
        anchor = self.retention_anchor
        return anchor is not None and now - anchor > retention


def item_kind_for(event: AgentEvent, result: ApplyResult) -> AttentionKind | None:
    """The kind of item an event creates under the policy above, or None."""
    run = result.run
    if not result.applied or run is None:
        return None
    kind = event.kind
    if kind == AgentEventKind.APPROVAL_REQUESTED:
        return AttentionKind.APPROVAL_REQUEST
    if kind == AgentEventKind.INPUT_REQUESTED:
        return AttentionKind.INPUT_REQUEST
    if kind == AgentEventKind.FAILED:
        return AttentionKind.FAILURE
    if kind == AgentEventKind.LIMIT_REACHED:
        return AttentionKind.USAGE_LIMIT
    if kind == AgentEventKind.DISCONNECTED:
        return AttentionKind.DISCONNECT if result.previous_state in ACTIVE_STATES else None
    if kind == AgentEventKind.SUCCEEDED and _lasted_long(run):
        return AttentionKind.COMPLETION
    return None


def _lasted_long(run: AgentRun) -> bool:
    if run.started_at is None or run.updated_at is None:
        return False
    return run.updated_at - run.started_at >= LONG_RUN_SECONDS


class AttentionBook:
    """Every attention item, keyed by id. In memory, no I/O."""

    __slots__ = ("_by_run", "_items", "_open_outcomes", "_open_requests", "_retention")

    def __init__(self, retention: float = RETENTION_SECONDS) -> None:
        self._items: dict[str, AttentionItem] = {}
        self._by_run: dict[RunId, dict[str, None]] = {}
        # Unresolved items by what can resolve them: requests by run, outcomes by pane.
        self._open_requests: dict[RunId, dict[str, None]] = {}
        self._open_outcomes: dict[SurfaceId, dict[str, None]] = {}
        self._retention = retention

    def __len__(self) -> int:
        return len(self._items)

    def observe(self, event: AgentEvent, result: ApplyResult) -> AttentionItem | None:
        """Update items for one event after the run book reduced it; return a new item if any.

        Call it for every event in the same order as :meth:`RunBook.apply`; events that were not
        applied (duplicates, conflicts, ignored transitions) change nothing.
        """
        if result.dropped is not None:
            self.forget_run(result.dropped)
        run = result.run
        if not result.applied or run is None:
            return None
        if result.previous_state in _WAITING_STATES:
            self._resolve(self._open_requests.pop(run.id, {}), event.occurred_at)
        if result.previous_state in _RESTART_STATES and run.state == AgentRunState.RUNNING:
            self._resolve(self._open_outcomes.pop(run.surface_id, {}), event.occurred_at)

        kind = item_kind_for(event, result)
        if kind is None or event.id in self._items:
            return None
        item = AttentionItem(
            id=event.id,
            surface_id=run.surface_id,
            run_id=run.id,
            provider=run.provider,
            kind=kind,
            message=event.message,
            created_at=event.occurred_at,
        )
        return self._add(item)

    def add_launch_failure(
        self,
        job_id: JobId,
        surface_id: SurfaceId,
        provider: AgentProvider,
        message: str,
        at: float,
    ) -> AttentionItem | None:
        """The item of a job that ended launch-failed (keyed by the job id); None if known.

        Like a failure, it is resolved when a run starts on the pane (the human retried there).
        """
        return self._add_job_item(
            job_id, job_id, surface_id, provider, AttentionKind.LAUNCH_FAILURE, message, at
        )

    def add_sign_in(
        self,
        item_id: str,
        job_id: JobId,
        surface_id: SurfaceId,
        provider: AgentProvider,
        message: str,
        at: float,
    ) -> AttentionItem | None:
        """A job whose worker waits at its sign-in screen: an ``input-request`` about the job
        (None if ``item_id`` is known); the job registry acknowledges it once the job moves on."""
        return self._add_job_item(
            item_id, job_id, surface_id, provider, AttentionKind.INPUT_REQUEST, message, at
        )

    def add_budget_item(
        self,
        item_id: str,
        job_id: JobId,
        surface_id: SurfaceId,
        provider: AgentProvider,
        message: str,
        at: float,
    ) -> AttentionItem | None:
        """A job's token-budget item (see the module docstring); None if ``item_id`` is known."""
        return self._add_job_item(
            item_id, job_id, surface_id, provider, AttentionKind.BUDGET, message, at
        )

    def add_resume_stopped(
        self,
        item_id: str,
        job_id: JobId,
        surface_id: SurfaceId,
        provider: AgentProvider,
        message: str,
        at: float,
    ) -> AttentionItem | None:
        """``mytty resume`` stopped after three failed starts (None if ``item_id`` is known)."""
        return self._add_job_item(
            item_id, job_id, surface_id, provider, AttentionKind.RESUME_STOPPED, message, at
        )

    def add_limit_hold(
        self,
        item_id: str,
        job_id: JobId,
        surface_id: SurfaceId,
        provider: AgentProvider,
        message: str,
        at: float,
    ) -> AttentionItem | None:
        """A parked job that mytty stopped resuming (parked again too often); None if known."""
        return self._add_job_item(
            item_id, job_id, surface_id, provider, AttentionKind.USAGE_LIMIT, message, at
        )

    def _add_job_item(
        self,
        item_id: str,
        job_id: JobId,
        surface_id: SurfaceId,
        provider: AgentProvider,
        kind: AttentionKind,
        message: str,
        at: float,
    ) -> AttentionItem | None:
        """An item about a job rather than a run (None if ``item_id`` is known): the job's id
        stands in for the run, which may not exist."""
        if item_id in self._items:
            return None
        return self._add(
            AttentionItem(
                id=item_id,
                surface_id=surface_id,
                run_id=RunId(job_id),
                provider=provider,
                kind=kind,
                message=message,
                created_at=at,
            )
        )

    def restore(self, item: AttentionItem) -> None:
        """Put back an item from a snapshot, as it was (resolved or acknowledged included)."""
        self._add(item)
        if item.resolved_at is not None:
            _unindex(self._open_requests, item.run_id, item.id)
            _unindex(self._open_outcomes, item.surface_id, item.id)

    def all_items(self) -> list[AttentionItem]:
        """Every item, expired ones included, in creation order (for a snapshot)."""
        return list(self._items.values())

    def _add(self, item: AttentionItem) -> AttentionItem:
        kind = item.kind
        self._items[item.id] = item
        self._by_run.setdefault(item.run_id, {})[item.id] = None
        if kind in REQUEST_KINDS:
            self._open_requests.setdefault(item.run_id, {})[item.id] = None
        elif kind is not AttentionKind.BUDGET:
            self._open_outcomes.setdefault(item.surface_id, {})[item.id] = None
        return item

    def _resolve(self, item_ids: Iterable[str], at: float) -> None:
        for item_id in item_ids:
            item = self._items.get(item_id)
            if item is not None and item.resolved_at is None:
                self._items[item_id] = replace(item, resolved_at=at)

    def get(self, item_id: str) -> AttentionItem | None:
        return self._items.get(item_id)

    def items(self, now: float) -> list[AttentionItem]:
        """Items still within retention at ``now``: newest createdAt first, then id descending."""
        live = [item for item in self._items.values() if not item.expired(now, self._retention)]
        live.sort(key=lambda item: (item.created_at, item.id), reverse=True)
        return live

    def acknowledge(self, item_id: str, now: float) -> bool:
        """Acknowledge an item. True only when it exists and was not acknowledged before.

        The first acknowledgement wins, matching the store's insert-or-ignore, so the caller
        persists the acknowledgement only when this returns True. Acknowledging a resolved item
        is allowed; retention counts from whichever happened first.
        """
        item = self._items.get(item_id)
        if item is None or item.acknowledged_at is not None:
            return False
        self._items[item_id] = replace(item, acknowledged_at=now)
        return True

    def acknowledge_completions(self, before: float, now: float) -> list[str]:
        """Acknowledge every actionable completion item created before ``before`` (startup step 4).

        Returns the ids acknowledged, so the caller can persist them.
        """
        acked = [
            item.id
            for item in self._items.values()
            if item.kind == AttentionKind.COMPLETION
            and item.actionable
            and item.created_at < before
        ]
        for item_id in acked:
            self.acknowledge(item_id, now)
        return acked

    def prune(self, now: float) -> list[str]:
        """Drop items past retention; return their ids."""
        expired = [item.id for item in self._items.values() if item.expired(now, self._retention)]
        for item_id in expired:
            self._drop(item_id)
        return expired

    def actionable_for_run(self, run_id: RunId) -> bool:
        """True when any item of the run is still actionable."""
        return any(self._items[item_id].actionable for item_id in self._by_run.get(run_id, {}))

    def anchors_for_run(self, run_id: RunId) -> list[float]:
        """Retention anchors of the run's non-actionable items (actionable ones have none)."""
        anchors: list[float] = []
        for item_id in self._by_run.get(run_id, {}):
            anchor = self._items[item_id].retention_anchor
            if anchor is not None:
                anchors.append(anchor)
        return anchors

    def forget_run(self, run_id: RunId) -> None:
        """Drop every item of a run (used by prune)."""
        for item_id in list(self._by_run.get(run_id, {})):
            self._drop(item_id)

    def _drop(self, item_id: str) -> None:
        item = self._items.pop(item_id, None)
        if item is None:
            return
        _unindex(self._by_run, item.run_id, item_id)
        _unindex(self._open_requests, item.run_id, item_id)
        _unindex(self._open_outcomes, item.surface_id, item_id)


def _unindex(index: dict[K, dict[str, None]], key: K, item_id: str) -> None:
    bucket = index.get(key)
    if bucket is not None:
        bucket.pop(item_id, None)
        if not bucket:
            del index[key]
