"""Which queued workers may start now: the admission rules of ``[admission]`` (pure).

The controller keeps one queue of jobs waiting to start (``queued``), in the order they were
queued. Whenever something changes that could let one start (a worker ended, a pane closed,
memory was freed, a spawn arrived), it calls :func:`plan` with the queue, the live workers and
what it measured, and starts what the plan says. A spawn is judged the same way, as if it
were the last job of the queue, so it never overtakes a job that waits for the same thing.

A job may start when, in this order (the first rule it breaks is its ``queuedBecause``):

1. ``usage-limit``: its provider's account is not limited (:mod:`mytty.core.admission.accounts`);
2. ``max-workers``: fewer than ``max_workers`` workers are live;
3. ``max-workers-per-provider``: fewer than that provider's limit are live;
4. ``max-workers-per-lead``: its lead has fewer than ``max_workers_per_lead`` live workers;
5. ``memory``: the available memory, less what starting workers are still expected to take,
   is at least ``min_available_memory_mb``;
6. ``start-burst``: a job ``mytty resume`` queued starts only while its pacing lets one more
   start (``start_burst`` at a time, ``start_interval_seconds`` apart).

A worker is *live* from the moment it is started until its job ends (``launching``,
``running``, ``waiting-*``, ``parked``: a worker at its usage limit keeps its pane and memory
and goes on by itself after the reset); a queued job is not live, nor is a finished one whose
agent still sits in its pane (its memory is what the memory rule sees).

Memory measured just after a worker started does not show what it will take yet, so every
worker still starting (``launching``) counts with its ``pending_mb``: what a worker of its
provider is expected to take, less what its processes hold so far. A job the plan starts
counts the same way for the jobs after it. Rules 2 to 5 do not depend on the job itself beyond
its provider and lead, so jobs waiting for the same thing start in their order; a job blocked
only by its provider's or its lead's limit lets later jobs of other providers or leads pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from mytty.core.admission.accounts import AccountLimit
from mytty.core.events import WorkerProvider
from mytty.core.ids import SurfaceId

#: What a starting worker is expected to take (MB) while none of its provider was measured yet
#: (a Claude Code worker takes 0.4 to 2 GB).
DEFAULT_WORKER_ESTIMATE_MB = 512.0


class QueueReason(StrEnum):
    """Why a job is queued (``queuedBecause``), in the order the rules are checked."""

    USAGE_LIMIT = "usage-limit"
    MAX_WORKERS = "max-workers"
    MAX_WORKERS_PER_PROVIDER = "max-workers-per-provider"
    MAX_WORKERS_PER_LEAD = "max-workers-per-lead"
    MEMORY = "memory"
    START_BURST = "start-burst"


@dataclass(frozen=True, slots=True)
class Limits:
    """``[admission]``'s limits (None, or a provider left out: no limit of that kind)."""

    max_workers: int | None = None
    #: (provider, most live workers of it), e.g. (("claude", 4),).
    per_provider: tuple[tuple[str, int], ...] = ()
    per_lead: int | None = None
    min_available_mb: int | None = None

    def for_provider(self, provider: WorkerProvider) -> int | None:
        for name, most in self.per_provider:
            if name == provider.value:
                return most
        return None

    @property
    def any(self) -> bool:
        """Does any limit apply at all (else every job starts at once)?"""
        return (
            self.max_workers is not None
            or bool(self.per_provider)
            or self.per_lead is not None
            or self.min_available_mb is not None
        )


@dataclass(frozen=True, slots=True)
class Worker:
    """A live worker, or a start under way (a spawn between its check and its job)."""

    provider: WorkerProvider
    lead: SurfaceId | None
    #: Memory (MB) it is still expected to take: > 0 only while it is starting.
    pending_mb: float = 0.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """A job that would start: a queued one, or a spawn being judged."""

    job_id: str
    provider: WorkerProvider
    lead: SurfaceId | None
    #: Queued by ``mytty resume``: its start is paced (rule 6).
    paced: bool = False


@dataclass(frozen=True, slots=True)
class Facts:
    """What the controller knows now."""

    live: tuple[Worker, ...] = ()
    #: Available memory (MB) measured now; None when no memory limit applies.
    available_mb: float | None = None
    #: What a worker of each provider is expected to take when it starts (MB).
    estimate_mb: Mapping[WorkerProvider, float] = field(default_factory=dict)
    #: Provider accounts that are limited now.
    limited: Mapping[WorkerProvider, AccountLimit] = field(default_factory=dict)
    #: How many paced starts may begin now.
    paced_slots: int = 0
    #: How the pacing reads in a message (e.g. "2 at a time, 10 s apart").
    pacing: str = ""

    def estimate(self, provider: WorkerProvider) -> float:
        return self.estimate_mb.get(provider, DEFAULT_WORKER_ESTIMATE_MB)


@dataclass(frozen=True, slots=True)
class Waiting:
    """Why a job can't start now: the rule, and the same in words."""

    reason: QueueReason
    detail: str


@dataclass(frozen=True, slots=True)
class Plan:
    """Which jobs start now (in queue order) and why each other one waits."""

    start: tuple[str, ...]
    waiting: Mapping[str, Waiting]


@dataclass(slots=True)
class _Counts:
    total: int = 0
    by_provider: dict[WorkerProvider, int] = field(default_factory=dict)
    by_lead: dict[SurfaceId | None, int] = field(default_factory=dict)
    pending_mb: float = 0.0

    def add(self, provider: WorkerProvider, lead: SurfaceId | None, pending_mb: float) -> None:
        self.total += 1
        self.by_provider[provider] = self.by_provider.get(provider, 0) + 1
        self.by_lead[lead] = self.by_lead.get(lead, 0) + 1
        self.pending_mb += pending_mb


def _mb(value: float) -> str:
    return f"{round(value):,} MB"


def _check(c: Candidate, n: _Counts, facts: Facts, limits: Limits, slots: int) -> Waiting | None:
    """The first rule ``c`` breaks with the counts ``n`` (None: it may start)."""
    limit = facts.limited.get(c.provider)
    if limit is not None:
        return Waiting(QueueReason.USAGE_LIMIT, f"{c.provider.value}: {limit.detail}")
    if limits.max_workers is not None and n.total >= limits.max_workers:
        return Waiting(
            QueueReason.MAX_WORKERS,
            f"{n.total} of max_workers = {limits.max_workers} workers are live",
        )
    most = limits.for_provider(c.provider)
    live = n.by_provider.get(c.provider, 0)
    if most is not None and live >= most:
        return Waiting(
            QueueReason.MAX_WORKERS_PER_PROVIDER,
            f"{live} of max_workers_per_provider.{c.provider.value} = {most} workers are live",
        )
    theirs = n.by_lead.get(c.lead, 0)
    if limits.per_lead is not None and theirs >= limits.per_lead:
        return Waiting(
            QueueReason.MAX_WORKERS_PER_LEAD,
            f"its lead has {theirs} of max_workers_per_lead = {limits.per_lead} workers live",
        )
    if limits.min_available_mb is not None:
        free = (facts.available_mb or 0.0) - n.pending_mb
        if free < limits.min_available_mb:
            starting = (
                f" ({_mb(facts.available_mb or 0.0)} less {_mb(n.pending_mb)} that starting "
                "workers are expected to take)"
                if n.pending_mb
                else ""
            )
            return Waiting(
                QueueReason.MEMORY,
                f"{_mb(free)} of memory available{starting}, below min_available_memory_mb = "
                f"{limits.min_available_mb:,}",
            )
    if c.paced and slots <= 0:
        return Waiting(
            QueueReason.START_BURST,
            "mytty resume starts workers " + (facts.pacing or "a few at a time"),
        )
    return None


def plan(queue: Sequence[Candidate], facts: Facts, limits: Limits) -> Plan:
    """Which of ``queue`` (in queue order) start now, and why the others wait."""
    counts = _Counts()
    for worker in facts.live:
        counts.add(worker.provider, worker.lead, worker.pending_mb)
    slots = facts.paced_slots
    start: list[str] = []
    waiting: dict[str, Waiting] = {}
    for c in queue:
        why = _check(c, counts, facts, limits, slots)
        if why is not None:
            waiting[c.job_id] = why
            continue
        start.append(c.job_id)
        counts.add(c.provider, c.lead, facts.estimate(c.provider))
        if c.paced:
            slots -= 1
    return Plan(tuple(start), waiting)


def refusal(why: Waiting) -> str:
    """The message of ``agent spawn --no-queue`` when the worker can't start now."""
    return (
        f"the worker can't start now ({why.reason.value}: {why.detail}); without --no-queue "
        "it would be queued and start by itself once admitted"
    )


def waiting_message(why: Waiting) -> str:
    """A queued job's ``message``: why it waits."""
    return f"Queued until admitted ({why.reason.value}): {why.detail}."
