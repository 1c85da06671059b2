"""Admission, the controller's side: judge each spawn, keep the queue, start queued workers.

The rules are :mod:`mytty.core.admission.rules`; this module gathers what they need and acts
on the plan:

- **a spawn** :meth:`claim`s a slot: the plan, with the queue and the spawn as its last job,
  says whether it may start now. A slot is held until the spawn's job exists (or the spawn
  failed), so two spawns at once are counted against each other; a slot that must wait has its
  ticket, so queued spawns keep their order.
- **the queue** is the jobs in state ``queued`` (stored: a restart keeps them, in ticket order).
  :meth:`run` plans again whenever something changed that could let one start: a job's state
  (a worker ended), the pane set (a pane closed), settings, a timer (the next burst of
  ``mytty resume``, the end of a usage limit), and once a second while a job waits for memory.
  Nothing runs while the queue is empty.
- **starting** a queued job replaces its pane's placeholder with the worker (``respawn``, by
  the ``start`` callable), then the job is ``launching`` with a launch window opening now.
- **resumed** workers (``paced`` jobs) start in bursts (:mod:`mytty.core.admission.pacing`);
  each start's outcome is watched, and three failed starts in a row stop the resumption: the
  jobs still queued are given up (``lost``, their panes closed) and an attention item says why.

Memory is read fresh for each spawn (psutil, about 25 µs) and for the queue at most once a
second, unless a worker started or settled since the last reading (which then no longer
matches what starting workers are expected to take); the processes of starting workers are sampled at most once a second, only while a
memory limit is set and a worker is starting or waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mytty.core.admission import pacing as pace
from mytty.core.admission.accounts import NO_ACCOUNT_LIMITS, AccountLimits
from mytty.core.admission.rules import (
    Candidate,
    Facts,
    Plan,
    QueueReason,
    Waiting,
    Worker,
    plan,
    waiting_message,
)
from mytty.core.config import AdmissionSettings
from mytty.core.errors import MyttyError
from mytty.core.events import WorkerProvider
from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob, AgentJobState, is_terminal
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import Clock
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.resources.memory import available_mb
from mytty.daemon.resources.sampler import ResourceSampler

log = logging.getLogger(__name__)

#: Changes that arrive within this long after a plan are folded into the next one.
MIN_PLAN_GAP_S = 0.02
#: How often the queue looks at memory again while a job waits for it.
MEMORY_RECHECK_S = 1.0


@dataclass(frozen=True, slots=True)
class Slot:
    """A spawn's claim: ``waiting`` None means it may start now."""

    candidate: Candidate
    ticket: int
    waiting: Waiting | None


class Admission:
    def __init__(
        self,
        *,
        jobs: JobRegistry,
        hub: AgentHub,
        clock: Clock,
        settings: Callable[[], AdmissionSettings],
        sampler: ResourceSampler,
        start: Callable[[AgentJob], Awaitable[None]],
        give_up: Callable[[AgentJob, str], Awaitable[None]],
        stopped: Callable[[AgentJob, str], None],
        accounts: AccountLimits = NO_ACCOUNT_LIMITS,
        memory: Callable[[], float] = available_mb,
    ) -> None:
        self._jobs = jobs
        self._hub = hub
        self._clock = clock
        self._settings = settings
        self._sampler = sampler
        #: Starts a queued job's worker in its pane (raises MyttyError when it can't).
        self._start = start
        #: Gives a queued job up (closes its pane; the job becomes lost with the message).
        self._give_up = give_up
        #: Raises the attention item of a resumption that stopped (the last failed job).
        self._stopped = stopped
        self.accounts = accounts
        self._memory = memory
        #: The last memory reading: when, what it goes with (the workers starting then, the
        #: sample of their processes), MB available.
        self._memory_read: tuple[float, tuple[frozenset[str], int], float] | None = None
        self._tickets = itertools.count(1)
        self._slots: dict[int, Slot] = {}
        self._pace = pace.PaceState()
        #: Paced jobs started and not yet settled (their first run, or a failure).
        self._watching: set[str] = set()
        self._wake = asyncio.Event()
        self._planning = asyncio.Lock()
        self._tasks: set[asyncio.Future[None]] = set()
        self.plans = 0
        jobs.on_queued = self._job_queued

    # -- settings ---------------------------------------------------------------------------------
    def settings_changed(self) -> None:
        """config.toml changed: the queue is judged again under the new limits."""
        self._wake.set()

    def restore(self) -> None:
        """After a restart: tickets continue after the stored queue's."""
        highest = max((j.queue_ticket or 0 for j in self._jobs.queued()), default=0)
        self._tickets = itertools.count(highest + 1)

    def _job_queued(self, _job: AgentJob) -> None:
        self._wake.set()

    # -- a spawn's claim --------------------------------------------------------------------------
    def claim(
        self, provider: WorkerProvider, lead: SurfaceId | None, *, paced: bool = False
    ) -> Slot:
        """Judge a spawn now and hold its slot until :meth:`release` (call it in ``finally``)."""
        ticket = next(self._tickets)
        candidate = Candidate(f"\x00slot-{ticket}", provider, lead, paced)
        settings = self._settings()
        nothing_to_judge = (
            not settings.limits().any
            and not paced
            and self.accounts is NO_ACCOUNT_LIMITS
            and not self._has_queue()
        )
        if nothing_to_judge:
            slot = Slot(candidate, ticket, None)  # the fast path: nothing to judge
        else:
            queue = [*self._queue_candidates(), candidate]
            result = self._plan(queue, settings, fresh_memory=True)
            slot = Slot(candidate, ticket, result.waiting.get(candidate.job_id))
            if slot.waiting is None and paced:
                self._pace = pace.began(
                    self._pace, settings.pacing(), [candidate.job_id], self._now()
                )
            if any(c.job_id in result.start for c in queue[:-1]):
                self._wake.set()  # queued jobs may start too: the loop starts them
        self._slots[ticket] = slot
        return slot

    def release(self, ticket: int, job: AgentJob | None = None) -> None:
        """The spawn's job exists (``job``) or the spawn failed (None): its slot is freed."""
        slot = self._slots.pop(ticket, None)
        if slot is None:
            return
        if job is not None and slot.waiting is None:
            self._memory_read = None  # a worker started: the last reading no longer shows it
        if job is not None and slot.candidate.paced and slot.waiting is None:
            # A resumed worker started at once: its outcome counts for the pacing.
            burst = tuple(job.job_id if j == slot.candidate.job_id else j for j in self._pace.burst)
            self._pace = dataclasses.replace(self._pace, burst=burst)
            self._watching.add(job.job_id)
        self._wake.set()

    def resumption_started(self) -> None:
        """A new ``mytty resume``: a pacing stopped by failures may go again."""
        self._pace = pace.restarted(self._pace)

    def position_hint(self, ticket: int) -> int:
        """Where a queued spawn lands in the queue (1: next)."""
        ahead = sum(1 for j in self._jobs.queued() if (j.queue_ticket or 0) < ticket)
        ahead += sum(1 for t, s in self._slots.items() if t < ticket and s.waiting)
        return ahead + 1

    # -- planning ---------------------------------------------------------------------------------
    def _now(self) -> float:
        return self._clock.now()

    def _has_queue(self) -> bool:
        return bool(self._jobs.queued()) or any(s.waiting for s in self._slots.values())

    def _queue_candidates(self) -> list[Candidate]:
        """The queue in ticket order: queued jobs and spawns that are being queued."""
        entries: list[tuple[int, Candidate]] = [
            (job.queue_ticket or 0, Candidate(job.job_id, job.provider, job.lead, job.paced))
            for job in self._jobs.queued()
        ]
        entries += [(t, s.candidate) for t, s in self._slots.items() if s.waiting is not None]
        return [c for _t, c in sorted(entries, key=lambda e: e[0])]

    def _available(self, fresh: bool, starting: frozenset[str]) -> float:
        """Available memory: read again unless the last reading is under a second old and
        goes with the same starting workers and the same sample of their processes (what a
        starting worker is still expected to take is that sample's: a reading from before it
        would count its memory twice or not at all)."""
        now = self._clock.now()
        last = self._memory_read
        key = (starting, self._sampler.samples_taken)
        if fresh or last is None or now - last[0] >= MEMORY_RECHECK_S or last[1] != key:
            last = self._memory_read = (now, key, self._memory())
        return last[2]

    def _facts(self, settings: AdmissionSettings, *, fresh_memory: bool) -> Facts:
        limits = settings.limits()
        memory_limited = limits.min_available_mb is not None
        unfinished = self._jobs.unfinished()
        live_jobs = [j for j in unfinished if j.state is not AgentJobState.QUEUED]
        starting = [j for j in live_jobs if j.state is AgentJobState.LAUNCHING]
        if memory_limited and (starting or self._has_queue()):
            self._sampler.sample_now()  # what starting workers hold, what running ones take
        peaks = self._sampler.peak_mb()
        facts_estimate = dict(peaks)

        def pending(job: AgentJob) -> float:
            if not memory_limited or job.state is not AgentJobState.LAUNCHING:
                return 0.0
            expected = facts_estimate.get(job.provider, Facts().estimate(job.provider))
            return max(0.0, expected - self._sampler.rss_mb(job.job_id))

        live = [Worker(j.provider, j.lead, pending(j)) for j in live_jobs]
        live += [
            Worker(s.candidate.provider, s.candidate.lead, Facts().estimate(s.candidate.provider))
            for s in self._slots.values()
            if s.waiting is None
        ]
        now = self._now()
        limited = {
            p: lim for p in WorkerProvider if (lim := self.accounts.limit(p, now)) is not None
        }
        pacing = settings.pacing()
        still = sum(
            1
            for job_id in self._pace.burst
            if (j := self._find(job_id)) is not None and j.state is AgentJobState.LAUNCHING
        )
        return Facts(
            live=tuple(live),
            available_mb=self._available(fresh_memory, frozenset(j.job_id for j in starting))
            if memory_limited
            else None,
            estimate_mb=facts_estimate,
            limited=limited,
            paced_slots=pace.slots(self._pace, pacing, now, still),
            pacing=pacing.describe(),
        )

    def _find(self, job_id: str) -> AgentJob | None:
        try:
            return self._jobs.current(job_id)
        except MyttyError:  # an unknown id (a slot's): not a job yet
            return None

    def _plan(
        self, queue: list[Candidate], settings: AdmissionSettings, *, fresh_memory: bool
    ) -> Plan:
        self.plans += 1
        facts = self._facts(settings, fresh_memory=fresh_memory)
        result = plan(queue, facts, settings.limits())
        if result.start and facts.available_mb is not None:
            log.info(
                "admission: %.0f MB available, %.0f MB expected by starting workers: %d may start",
                facts.available_mb,
                sum(w.pending_mb for w in facts.live),
                len(result.start),
            )
        return result

    async def plan_now(self) -> None:
        """Plan the queue once and act on it: start what may start, note why others wait."""
        async with self._planning:
            self._settle_watched()
            settings = self._settings()
            queue = [c for c in self._queue_candidates() if not c.job_id.startswith("\x00")]
            if not queue:
                self._sampler.need(False)
                return
            result = self._plan(self._queue_candidates(), settings, fresh_memory=False)
            for candidate in queue:
                why = result.waiting.get(candidate.job_id)
                if why is not None:
                    self._jobs.still_queued(
                        candidate.job_id, why.reason.value, waiting_message(why)
                    )
            paced = [c.job_id for c in queue if c.paced and c.job_id in result.start]
            self._pace = pace.began(self._pace, settings.pacing(), paced, self._now())
            for job_id in result.start:
                if not job_id.startswith("\x00"):
                    await self._start_one(job_id)
            self._arm_timers(result, settings)

    async def _start_one(self, job_id: str) -> None:
        job = self._jobs.current(job_id)
        if job.state is not AgentJobState.QUEUED:
            return  # closed meanwhile: nothing to start
        try:
            await self._start(job)
        except (MyttyError, OSError) as exc:  # the pane went, tmux failed: it can't start
            message = f"The queued worker could not be started: {exc}"
            log.warning("job %s: %s", job_id, message)
            failed = self._jobs.start_failed(job_id, message)
            if failed.paced:
                self._settled(failed, ok=False)
            return
        self._memory_read = None  # a worker started: the last reading no longer shows it
        if job.paced:
            self._watching.add(job_id)
        log.info("job %s admitted: its worker starts now", job_id)

    def _arm_timers(self, result: Plan, settings: AdmissionSettings) -> None:
        reasons = {w.reason for w in result.waiting.values()}
        self._sampler.need(
            settings.limits().min_available_mb is not None
            and (QueueReason.MEMORY in reasons or bool(self._starting()))
        )
        if QueueReason.START_BURST in reasons:
            when = pace.next_burst_at(self._pace, settings.pacing())
            if when is not None:
                self._clock.call_later(max(0.0, when - self._now()) + 0.01, self._wake.set)
        if QueueReason.USAGE_LIMIT in reasons:
            now = self._now()
            untils = [
                lim.until
                for p in WorkerProvider
                if (lim := self.accounts.limit(p, now)) is not None and lim.until is not None
            ]
            if untils:
                self._clock.call_later(max(0.0, min(untils) - now) + 0.01, self._wake.set)

    def _starting(self) -> list[AgentJob]:
        return [j for j in self._jobs.unfinished() if j.state is AgentJobState.LAUNCHING]

    # -- resumed workers' outcomes ---------------------------------------------------------------
    def _settle_watched(self) -> None:
        for job_id in sorted(self._watching):
            job = self._find(job_id)
            if job is None or job.state is AgentJobState.LAUNCHING:
                continue
            ok = job.run_id is not None or (
                not is_terminal(job.state) and job.state is not AgentJobState.QUEUED
            )
            self._settled(job, ok=ok)

    def _settled(self, job: AgentJob, *, ok: bool) -> None:
        self._watching.discard(job.job_id)
        was_stopped = self._pace.stopped
        self._pace = pace.settled(self._pace, ok)
        if self._pace.stopped and not was_stopped:
            task = asyncio.ensure_future(self._stop_resumption(job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _stop_resumption(self, last: AgentJob) -> None:
        reason = (
            f"mytty resume stopped after {pace.FAILURES_TO_STOP} failed starts in a row (the "
            f"last: job {last.job_id}: {last.message or last.state.value}); the workers not "
            "yet started were left lost. Fix the cause, then run `mytty resume` again."
        )
        log.warning("%s", reason)
        self._stopped(last, reason)
        for job in self._jobs.queued():
            if job.paced:
                await self._give_up(job, "Not resumed: " + reason)

    # -- the loop ---------------------------------------------------------------------------------
    def _active(self) -> bool:
        return self._has_queue() or bool(self._watching)

    async def run(self) -> None:
        """Plan whenever something changed, while there is a queue (or resumed workers to
        watch); sleep otherwise."""
        loop = asyncio.get_running_loop()
        while True:
            if not self._active():
                self._sampler.need(False)
                self._wake.clear()
                if not self._active():
                    await self._wake.wait()
                continue
            seen = self._hub.version
            started = loop.time()
            self._wake.clear()
            try:
                await self.plan_now()
            except Exception:  # never let one bad plan stop admission
                log.exception("admission could not plan the queue")
            await self._changed_since(seen)
            remaining = started + MIN_PLAN_GAP_S - loop.time()
            if remaining > 0:
                await asyncio.sleep(remaining)

    async def _changed_since(self, seen: int) -> None:
        """Until the books or panes changed, :meth:`wake` was called, or a second passed while
        a job waits for memory."""
        timeout = MEMORY_RECHECK_S if self._waits_for_memory() else None
        changed = asyncio.ensure_future(
            self._hub.wait_until(lambda: True if self._hub.version != seen else None, 7 * 86400)
        )
        woken = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait(
                {changed, woken}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for task in (changed, woken):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(changed, woken, return_exceptions=True)

    def _waits_for_memory(self) -> bool:
        return any(j.queued_because == QueueReason.MEMORY.value for j in self._jobs.queued())
