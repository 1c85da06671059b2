"""The job registry: spawned worker jobs, reconciled against live run state, kept in the store.

A difference from the original, whose jobs lived in memory only: every job is stored
(``agent_job`` in the event store). A new job is committed before ``agent spawn`` replies (a
failed write leaves no job), and every change of a job is queued to the store's one writer in
order. A restart reloads them (:meth:`JobRegistry.load`), and the startup sweep reconciles each
against the panes found, so a job whose pane vanished meanwhile reads ``lost``.

Memory is bounded: every unfinished job stays in memory, and so do the newest
:data:`FINISHED_JOBS_IN_MEMORY` finished ones. An older finished job leaves memory (and
``agent list``) but not the store: asking for it by id reads it back.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import replace

from mytty.core.attention.items import AttentionItem
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId, format_uuid_bytes, resolve_prefix
from mytty.core.jobs import tracker as core_jobs
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.launch_screen import SIGN_IN_KEEPS_TASK
from mytty.core.jobs.tracker import AgentJob, AgentJobState, LaunchClues, QueuedAs, SpawnTags
from mytty.core.runs.run import AgentRun
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import DEFAULT_TIMINGS, Clock
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.jobs.launch_watch import LaunchWatch, Screen, Watched
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.store import EventStore, StoreError
from mytty.protocol import wire
from mytty.protocol.replies import CostPart, JobSnapshot, ResourcePart, TokenUsageEntry

log = logging.getLogger(__name__)
#: What a job-id prefix is made of, and how long a full id is (shorter text may be a prefix).
_PREFIX_CHARS = frozenset("0123456789abcdefABCDEF-")
_FULL_ID_CHARS = 36

#: A lead's cost in dollars: its own, its workers', the two added up (None: unknown).
LeadCost = tuple[float | None, float | None, float | None]

#: How long after a job's deadline its timer settles it.
DEADLINE_MARGIN_S = 0.01

#: Finished jobs kept in memory (and listed by ``agent list``); older ones are read from the store.
FINISHED_JOBS_IN_MEMORY = 500


class JobRegistry:
    def __init__(
        self,
        *,
        hub: AgentHub,
        panes: PaneRegistry,
        foreground_agent: Callable[[Pane], tuple[AgentProvider | None, int | None]],
        codex_router: CodexRouter,
        clock: Clock,
        launch_window: float = DEFAULT_TIMINGS.launch_window,
        store: EventStore | None = None,
        finished_in_memory: int = FINISHED_JOBS_IN_MEMORY,
        usage_of: Callable[[AgentJob], TokenUsageEntry | None] = lambda _job: None,
        on_attention_item: Callable[[AttentionItem], None] = lambda _item: None,
        successor_run: Callable[[RunId], RunId | None] = lambda _run_id: None,
        cost_of: Callable[[AgentJob], CostPart] = lambda _job: {},
        resources_of: Callable[[AgentJob], ResourcePart] = lambda _job: {},
        refresh_resources: Callable[[], Awaitable[None]] | None = None,
        lead_cost: Callable[[SurfaceId, list[AgentJob]], LeadCost] | None = None,
        screen: Screen | None = None,
        after_reconcile: Callable[[AgentJob, AgentJob], AgentJob] = lambda _before, after: after,
        resumes_at: Callable[[AgentJob], float | None] = lambda _job: None,
    ) -> None:
        #: None: jobs are not stored (unit tests of the rules only).
        self._store = store
        self._finished_in_memory = finished_in_memory
        self._pending: set[asyncio.Future[object]] = set()
        self._clock = clock
        self._window = launch_window
        self._hub = hub
        self._panes = panes
        self._foreground_agent = foreground_agent
        self._codex_router = codex_router
        self._jobs: dict[str, AgentJob] = {}
        #: One lock per (lead, key) while an ``agent spawn --key`` looks up or starts its job,
        #: so two spawns with the same key at once still make one worker.
        self._key_locks: dict[tuple[str | None, str], asyncio.Lock] = {}
        #: A job's ``usage`` for its snapshot (the usage book's; none without one).
        self.usage_of = usage_of
        #: Told of each attention item a job creates (the notifier).
        self.on_attention_item = on_attention_item
        #: Native estimation: the turn run that continues a handed-off epoch run (see
        #: NativeEpochs.successor); a job bound to the epoch run follows it there.
        self.successor_run = successor_run
        #: What a launching worker's pane shows (its exit, a sign-in screen); None: nothing
        #: is looked at (unit tests of the rules).
        self.launch_watch = (
            LaunchWatch(screen=screen, clock=clock, watched=self._watched, settle=self._settle)
            if screen is not None
            else None
        )
        #: A job's ``costUsd`` (the usage book's) and its processes' ``rssBytes``/``cpuPercent``
        #: (the resource sampler's) for its snapshot.
        self.cost_of = cost_of
        self.resources_of = resources_of
        self._refresh_resources = refresh_resources
        self._lead_cost = lead_cost
        #: Told when a job is queued (admission wakes up).
        self.on_queued: Callable[[AgentJob], None] = lambda _job: None
        #: The usage-limit service's look at each reconciled job (before, after → what to
        #: keep): it fills in a new park and delivers held sends (daemon.limits). It must not
        #: call back into :meth:`current`.
        self.after_reconcile = after_reconcile
        #: When mytty plans to continue a parked job (its snapshot's ``resumesAt``).
        self.resumes_at = resumes_at
        #: False from :meth:`load` (a restart) until :meth:`sweep`: the panes are not listed
        #: yet, so no job may be judged against them. A loaded job's launch timer is due at
        #: once; fired while tmux was still being listed, it made live workers' jobs ``lost``
        #: for good (found by scripts/bench/truth: 81 of 200 after one ``kill -9``).
        self._panes_known = True

    def _runs(self, job: AgentJob) -> list[AgentRun]:
        runs: list[AgentRun] = self._hub.book.runs_for(job.surface_id, job.provider.agent_provider)
        return runs

    def start(
        self,
        surface_id: SurfaceId,
        provider: WorkerProvider,
        label: str | None,
        baseline: Iterable[RunId],
        tags: SpawnTags | None = None,
    ) -> AgentJob:
        """A new job for the worker just launched in ``surface_id``; its launch window opens now.

        ``baseline``: the runs the pane already had (the job binds only to a later one).
        """
        job = self._new_job(surface_id, provider, label, baseline, tags)
        self.add(job)
        return job

    def _new_job(
        self,
        surface_id: SurfaceId,
        provider: WorkerProvider,
        label: str | None,
        baseline: Iterable[RunId],
        tags: SpawnTags | None = None,
    ) -> AgentJob:
        job_id = JobId(format_uuid_bytes(os.urandom(16)))
        now = self._clock.now()
        return core_jobs.new_job(
            job_id, surface_id, provider, label, baseline, now, self._window, tags
        )

    async def spawn(
        self,
        surface_id: SurfaceId,
        provider: WorkerProvider,
        label: str | None,
        baseline: Iterable[RunId],
        tags: SpawnTags | None = None,
        *,
        session_id: str | None = None,
        launch: JobLaunch | None = None,
        job_id: JobId | None = None,
        queued: QueuedAs | None = None,
        memory_cap: tuple[int, str] | None = None,
    ) -> AgentJob:
        """:meth:`start`, committed to the store first: a job exists only once it is stored.

        ``session_id``: the conversation id mytty gave the worker (Claude ``--session-id``);
        ``launch``: how it was started (what ``mytty resume`` needs); ``job_id``: the id chosen
        before (else a new one); ``queued``: admission could not start it, so it is ``queued``
        (its pane waits; no launch window yet); ``memory_cap``: (MB, name) of the cap its
        worker runs under. Raises ``spawn-failed`` when the store can't take it (and then no
        job exists).
        """
        job = self._new_job(surface_id, provider, label, baseline, tags)
        job = dataclasses.replace(
            job,
            job_id=job_id or job.job_id,
            session_id=session_id,
            launch=launch,
            memory_cap_mb=memory_cap[0] if memory_cap else None,
            memory_cap=memory_cap[1] if memory_cap else None,
        )
        if queued is not None:
            job = core_jobs.queue(
                job, queued.reason, queued.ticket, queued.message, paced=queued.paced
            )
        if self._store is not None:
            try:
                await self._store.save_job(job)
            except StoreError as exc:
                raise MyttyError(
                    ErrorCode.SPAWN_FAILED, f"could not store the new job: {exc}"
                ) from None
        self.add(job)
        return job

    def add(self, job: AgentJob) -> None:
        self._jobs[job.job_id] = job
        if job.state is AgentJobState.QUEUED:
            self.on_queued(job)  # no launch window until it starts
        else:
            self._arm_deadline(job)
            self._watch(job)
        self._trim()
        self._hub.bump(job.surface_id)  # a new job is a change of its pane (tmux options)

    def load(self, jobs: Iterable[AgentJob]) -> None:
        """The jobs a restart read from the store, oldest first (their timers armed again;
        none is reconciled before :meth:`sweep`)."""
        self._panes_known = False
        for job in jobs:
            self.add(job)

    def _trim(self) -> None:
        """Drop the oldest finished jobs from memory beyond the bound (the store keeps them)."""
        finished = [i for i, j in self._jobs.items() if core_jobs.is_terminal(j.state)]
        for job_id in finished[: max(0, len(finished) - self._finished_in_memory)]:
            del self._jobs[job_id]

    def _changed(self, before: AgentJob, after: AgentJob) -> None:
        """Keep ``after`` and queue it to the store when it differs from ``before``."""
        self._jobs[after.job_id] = after
        if _signing_in(before) != _signing_in(after):
            self._sign_in_item(after, self._clock.now())
        if after == before or self._store is None:
            return
        try:
            fut = self._store.save_job_soon(after)
        except StoreError as exc:
            log.error("could not store job %s (%s): %s", after.job_id, after.state.value, exc)
            return
        self._pending.add(fut)
        fut.add_done_callback(self._written)

    def _written(self, fut: asyncio.Future[object]) -> None:
        self._pending.discard(fut)
        exc = fut.exception() if not fut.cancelled() else None
        if exc is not None:  # in memory it moved on; a restart would read the older row
            log.error("could not store a job's new state: %s", exc)

    async def flush(self) -> None:
        """Wait until every queued job change is committed (or failed, which is logged)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

    async def sweep(self) -> None:
        """Reconcile every unfinished job now (at startup: a job whose pane is gone → lost)."""
        self._panes_known = True
        for job_id in list(self._jobs):
            if not core_jobs.is_terminal(self._jobs[job_id].state):
                self.current(job_id)
        await self.flush()

    def _arm_deadline(self, job: AgentJob) -> None:
        # launch-failed needs no event to happen: when the window closes, settle the job (so a
        # launch failure reaches `mytty attention` even if nobody waits) and wake the waiters.
        # The margin: a timer may fire a hair before the wall clock reaches the deadline, and a
        # job checked then is not yet launch-failed (nothing would wake the waiters again).
        delay = max(0.0, job.deadline - self._clock.now()) + DEADLINE_MARGIN_S
        self._clock.call_later(delay, lambda: self._deadline_reached(job.job_id))

    def _watch(self, job: AgentJob) -> None:
        """Look at the pane of a job that waits for its first run (see launch_watch)."""
        if self.launch_watch is not None and job.state is AgentJobState.LAUNCHING:
            watched = self._watched(job.surface_id)
            if watched is not None and watched.job_id == job.job_id:
                self.launch_watch.arm(watched)

    def _watched(self, surface_id: SurfaceId) -> Watched | None:
        """The pane's job while the pane says something about it: unbound, or (for a provider
        that waits at its sign-in screen with the task) bound but not finished."""
        job = self.newest_in_pane(surface_id)
        if job is None or core_jobs.is_terminal(job.state) or job.state is AgentJobState.QUEUED:
            return None  # (a queued job's pane runs mytty's placeholder, not the agent)
        if job.run_id is not None and job.provider not in SIGN_IN_KEEPS_TASK:
            return None
        return Watched(job.job_id, surface_id, job.provider, job.deadline - self._window)

    def _settle(self, job_id: str) -> None:
        """What the pane showed changed the job: reconcile it now and wake its waiters."""
        if job_id in self._jobs:
            job = self.current(job_id)
            self._hub.bump(job.surface_id)

    def _deadline_reached(self, job_id: str) -> None:
        if not self._panes_known:
            return  # the startup sweep reconciles every unfinished job (and wakes the waiters)
        try:
            if job_id in self._jobs:
                self.current(job_id)
        except Exception:  # a timer callback: log it, and still wake the waiters
            log.exception("could not settle job %s at its launch deadline", job_id)
        self._hub.bump()

    def _clues(self, job: AgentJob, now: float) -> LaunchClues:
        """What the pane shows (see core.jobs): its exit or sign-in screen as the launch watch
        noted them, and, when the window closed unbound, its foreground and codex's strays."""
        spawned = job.deadline - self._window
        note = self.launch_watch.note(job.surface_id, spawned) if self.launch_watch else None
        noted = LaunchClues(
            exited=note.exited if note is not None else None,
            exit_status=note.exit_status if note is not None else None,
            sign_in=note.sign_in if note is not None else None,
        )
        if not core_jobs.needs_clues(job, now):
            return noted
        pane = self._panes.by_surface.get(job.surface_id)
        provider = self._foreground_agent(pane)[0] if pane is not None else None
        return replace(
            noted,
            agent_running=provider is job.provider.agent_provider,
            unplaced_events=self._codex_router.unplaced_since(spawned)
            if job.provider.agent_provider is self._codex_router.provider
            else 0,
        )

    def current(self, job_id: str) -> AgentJob:
        """The job reconciled against the current runs (``job-not-found`` when unknown).

        ``job_id`` may also be a prefix of one job in memory (any case, hyphens optional):
        ``mytty ls`` and the web view show a job's first 8 characters, and a person types
        those. A prefix several jobs share is ``invalid-request`` naming them. Callers go on
        with the returned job's ``job_id``, never the text they were given.
        """
        job = self._jobs.get(job_id)
        if job is None and len(job_id) < _FULL_ID_CHARS and _PREFIX_CHARS.issuperset(job_id):
            job_id = self._unique_prefix(job_id)
            job = self._jobs.get(job_id)
        if job is None and self._store is not None:
            try:
                job = self._store.read_job(job_id)
            except StoreError as exc:
                log.error("%s", exc)
        if job is None:
            raise MyttyError(ErrorCode.JOB_NOT_FOUND, f"no job {job_id!r}")
        if job_id not in self._jobs:
            if core_jobs.is_terminal(job.state):  # a finished job read back: final as it is
                return job
            self._jobs[job_id] = job  # (every unfinished job is in memory; defensive)
        stored = job
        if job.run_id is not None and not core_jobs.is_terminal(job.state):
            successor = self.successor_run(job.run_id)
            if successor is not None:
                job = replace(job, run_id=successor)
        exists = job.surface_id in self._panes.by_surface
        now = self._clock.now()
        clues = self._clues(job, now) if exists else None
        updated = core_jobs.reconcile(job, self._runs(job), exists, now, clues)
        updated = self.after_reconcile(stored, updated)
        self._changed(stored, updated)
        if updated.state is AgentJobState.LAUNCHING and updated.deadline != stored.deadline:
            self._arm_deadline(updated)  # re-armed to deliver a held send
        if updated.state is AgentJobState.LAUNCH_FAILED and job.state is not updated.state:
            self._launch_failed(updated, now)
        return updated

    def _sign_in_item(self, job: AgentJob, now: float) -> None:
        """A worker at its sign-in screen needs a human: `mytty attention` lists it (and the
        human is notified) while it waits there; the item goes once the job moved on."""
        item_id = f"{job.job_id}-sign-in"
        book = self._hub.attention
        if not _signing_in(job):
            if book.acknowledge(item_id, now):
                self._hub.bump()
            return
        item = book.add_sign_in(
            item_id, job.job_id, job.surface_id, job.provider.agent_provider, job.message or "", now
        )
        if item is not None:
            self._hub.bump()
            self.on_attention_item(item)

    def _launch_failed(self, job: AgentJob, now: float) -> None:
        """Never silently: the log says why, and `mytty attention` lists it."""
        log.warning(
            "job %s (%s, label %r, pane %s) is launch-failed: %s",
            job.job_id,
            job.provider.value,
            job.label,
            job.surface_id,
            job.message,
        )
        item = self._hub.attention.add_launch_failure(
            job.job_id, job.surface_id, job.provider.agent_provider, job.message or "", now
        )
        if item is not None:
            self._hub.bump()
            self.on_attention_item(item)

    def _unique_prefix(self, text: str) -> str:
        """The one job in memory ``text`` starts, or ``text`` itself when none does."""
        found = resolve_prefix(list(self._jobs), text)
        if len(found) > 1:
            shown = ", ".join(j[:13] for j in found[:4]) + ("…" if len(found) > 4 else "")
            raise MyttyError(
                ErrorCode.INVALID_REQUEST,
                f"{text!r} starts {len(found)} jobs ({shown}): give more of the job id",
            )
        return found[0] if found else text

    def ids(self) -> list[str]:
        """Every job in memory, oldest first (unfinished ones and the newest finished ones)."""
        return list(self._jobs)

    def parked(self) -> list[AgentJob]:
        """Every parked job as last reconciled, oldest first (every unfinished job is here)."""
        return [job for job in self._jobs.values() if job.state is AgentJobState.PARKED]

    def run_ids(self, job: AgentJob) -> list[RunId]:
        """The run ids of the job's pane and provider (a follow-up's new baseline)."""
        return [run.id for run in self._runs(job)]

    def update(self, job_id: str, change: Callable[[AgentJob], AgentJob]) -> AgentJob:
        """Apply ``change`` to the job as it is now (reconciled first), keep and store it."""
        job = self.current(job_id)
        updated = change(job)
        self._changed(job, updated)
        if updated != job:
            self._hub.bump(job.surface_id)
        return updated

    def re_arm(self, job_id: str) -> AgentJob:
        job = self.current(job_id)
        run_ids = [r.id for r in self._runs(job)]
        updated = core_jobs.prepare_for_follow_up(job, run_ids, self._clock.now(), self._window)
        if updated is not job:
            self._changed(job, updated)
            if updated.state is AgentJobState.LAUNCHING:
                self._arm_deadline(updated)
                self._watch(updated)
        return updated

    def mark_closed(self, job_id: str) -> None:
        """``agent close`` closed the job's pane on purpose: ``mytty resume`` skips the job."""
        job = self.current(job_id)
        if job.launch is not None and not job.launch.closed:
            self._changed(job, dataclasses.replace(job, launch=job.launch.closed_now()))

    async def resumed(
        self,
        job_id: str,
        surface_id: SurfaceId,
        argv: Iterable[str],
        *,
        queued: QueuedAs | None = None,
        memory_cap: tuple[int, str] | None = None,
    ) -> AgentJob:
        """The job moved to the new pane ``mytty resume`` started its worker in, stored first.

        It keeps its id, label, session and launch (with one more resumption and the new argv),
        and follows that pane's next run of its conversation: ``launching``, unbound, a fresh
        launch window, the pane's current runs as its baseline. ``queued``: admission holds the
        worker back, so the job waits ``queued`` in its new pane instead. Raises
        ``StoreError`` when the store can't take it (the job is then unchanged).
        """
        job = self.current(job_id)
        now = self._clock.now()
        launch = job.launch.resumed_now(now, tuple(argv)) if job.launch is not None else None
        updated = dataclasses.replace(
            job,
            surface_id=surface_id,
            state=AgentJobState.LAUNCHING,
            run_id=None,
            message=None,
            baseline=frozenset(
                r.id for r in self._hub.book.runs_for(surface_id, job.provider.agent_provider)
            ),
            deadline=now + self._window,
            bound_completed_by_idle=False,
            live_subagents=0,
            launch=launch,
            end_reason=None,
            memory_cap_mb=memory_cap[0] if memory_cap else None,
            memory_cap=memory_cap[1] if memory_cap else None,
            park=None,  # a parked worker restarted on its conversation (daemon.limits)
        )
        if queued is not None:
            updated = core_jobs.queue(
                updated, queued.reason, queued.ticket, queued.message, paced=queued.paced
            )
        if self._store is not None:
            await self._store.save_job(updated)
        self._jobs[job_id] = updated
        if queued is None:
            self._arm_deadline(updated)
            self._watch(updated)
        else:
            self.on_queued(updated)
        self._hub.bump(surface_id)
        return updated

    # -- admission (queued jobs) -------------------------------------------------------------------
    def unfinished(self) -> list[AgentJob]:
        """Every unfinished job, reconciled now, oldest first."""
        return [
            self.current(job_id)
            for job_id, job in list(self._jobs.items())
            if not core_jobs.is_terminal(job.state)
        ]

    def queued(self) -> list[AgentJob]:
        """The queued jobs in queue order (as last reconciled)."""
        waiting = [j for j in self._jobs.values() if j.state is AgentJobState.QUEUED]
        return sorted(waiting, key=lambda j: j.queue_ticket or 0)

    def still_queued(self, job_id: str, reason: str, message: str) -> AgentJob:
        """A queued job's reason for waiting, as admission sees it now."""
        job = self._jobs[job_id]
        updated = core_jobs.still_queued(job, reason, message)
        if updated is not job:
            self._changed(job, updated)
            self._hub.bump(job.surface_id)
        return updated

    def started(self, job_id: str, memory_cap: tuple[int, str] | None = None) -> AgentJob:
        """The queued job's worker was started in its pane just now: ``launching``, its launch
        window opening now; stored soon, waiters woken."""
        job = self.current(job_id)
        runs = [r.id for r in self._runs(job)]
        updated = core_jobs.admitted(job, runs, self._clock.now(), self._window)
        updated = dataclasses.replace(
            updated,
            memory_cap_mb=memory_cap[0] if memory_cap else None,
            memory_cap=memory_cap[1] if memory_cap else None,
        )
        self._changed(job, updated)
        self._arm_deadline(updated)
        self._watch(updated)
        self._hub.bump(updated.surface_id)
        return updated

    def start_failed(self, job_id: str, message: str) -> AgentJob:
        """A queued job whose worker could not be started: ``launch-failed`` with ``message``."""
        job = self.current(job_id)
        updated = dataclasses.replace(
            job,
            state=AgentJobState.LAUNCH_FAILED,
            message=message,
            queued_because=None,
            queue_ticket=None,
        )
        self._changed(job, updated)
        self._launch_failed(updated, self._clock.now())
        self._hub.bump(updated.surface_id)
        return updated

    def unqueued(self, job_id: str, message: str) -> AgentJob:
        """A queued job that will not start (its pane is closed by the caller): ``lost``."""
        job = self._jobs[job_id]
        updated = dataclasses.replace(
            job, state=AgentJobState.LOST, message=message, queued_because=None, queue_ticket=None
        )
        self._changed(job, updated)
        self._hub.bump(job.surface_id)
        return updated

    def ended_by_memory_limit(self, job_id: str) -> AgentJob:
        """The worker was killed by its memory cap: ``failed``, ``reason: memory-limit``."""
        job = self.current(job_id)
        if job.memory_cap_mb is None or job.end_reason is not None:
            return job
        updated = core_jobs.ended_by_memory_limit(job, job.memory_cap_mb)
        self._changed(job, updated)
        log.warning("job %s: %s", job_id, updated.message)
        self._hub.bump(job.surface_id)
        return updated

    # -- keys (agent spawn --key) ----------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def key_lock(self, lead: SurfaceId | None, key: str) -> AsyncIterator[None]:
        """Held by an ``agent spawn --key`` from its look-up until its job is stored."""
        slot = (lead, key)
        lock = self._key_locks.setdefault(slot, asyncio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and self._key_locks.get(slot) is lock:
                del self._key_locks[slot]

    def keyed(self, lead: SurfaceId | None, key: str) -> AgentJob | None:
        """The newest job of ``lead`` spawned with ``key`` that still holds it (reconciled now),
        looked up in memory first, then among the stored jobs no longer in memory."""
        for job_id in reversed(list(self._jobs)):
            job = self._jobs[job_id]
            if job.key == key and job.lead == lead:
                current = self.current(job_id)
                if core_jobs.holds_key(current):
                    return current
        if self._store is None:
            return None
        try:
            stored = self._store.read_keyed_jobs(key)
        except StoreError as exc:
            log.error("%s", exc)
            return None
        for job in reversed(stored):
            if job.lead == lead and job.job_id not in self._jobs and core_jobs.holds_key(job):
                return job  # a finished job read back: final as it is
        return None

    # -- lead notices (agent spawn --notify-lead) -------------------------------------------------
    def with_news_for(self, lead: SurfaceId) -> list[AgentJob]:
        """The ``--notify-lead`` jobs of ``lead`` with an outcome it has not been told, oldest
        first, each reconciled now (so a worker whose pane went reads ``lost``)."""
        news = []
        for job_id, job in list(self._jobs.items()):
            if job.notify_lead and job.lead == lead:
                current = self.current(job_id)
                if core_jobs.pending_notice(current):
                    news.append(current)
        return news

    def led_by(self, lead: SurfaceId) -> list[AgentJob]:
        """The jobs in memory that ``lead`` spawned, oldest first (as last reconciled)."""
        return [job for job in self._jobs.values() if job.lead == lead]

    async def mark_notified(self, jobs: Iterable[AgentJob]) -> None:
        """Record that the lead was told each job's outcome as given (the snapshot it was told),
        queued to the store and waited for: a restart then does not tell it again (a failed
        write is logged, and the lead may hear that outcome once more after a restart)."""
        for told in jobs:
            before = self._jobs.get(told.job_id, told)
            self._changed(before, replace(before, notified=core_jobs.notice_token(told)))
        await self.flush()

    def label_for_pane(self, surface_id: SurfaceId) -> str | None:
        """The label of the newest job started in that pane (for attention items)."""
        job = self.newest_in_pane(surface_id)
        return job.label if job is not None else None

    def settle_pane(self, surface_id: SurfaceId) -> None:
        """Reconcile the pane's newest job now, so it binds to the run that is live at this
        moment (a transcript's interrupt is about to end that run: an idle run is unbindable)."""
        job = self.newest_in_pane(surface_id)
        if job is not None and not core_jobs.is_terminal(job.state):
            self.current(job.job_id)

    def session_in_pane(self, surface_id: str) -> str | None:
        """The session id of the pane's newest job (mytty chose it for a Claude worker)."""
        job = self.newest_in_pane(SurfaceId(surface_id))
        return job.session_id if job is not None else None

    def newest_in_pane(self, surface_id: SurfaceId) -> AgentJob | None:
        """The newest job started in that pane (as last reconciled), if one is in memory."""
        for job in reversed(self._jobs.values()):
            if job.surface_id == surface_id:
                return job
        return None

    def newest_by_pane(self) -> dict[SurfaceId, AgentJob]:
        """The newest job in memory of each pane (as :meth:`label_for_pane` picks it)."""
        return {job.surface_id: job for job in self._jobs.values()}

    async def refresh_resources(self) -> None:
        """Sample the jobs' processes now (at most once a second): a reader wants figures."""
        if self._refresh_resources is not None:
            await self._refresh_resources()

    def lead_cost(self, lead: SurfaceId) -> LeadCost:
        """``lead``'s own cost, its workers' (every job it spawned), and the sum."""
        if self._lead_cost is None:
            return (None, None, None)
        return self._lead_cost(lead, self.led_by(lead))

    def queue_position(self, job: AgentJob) -> int | None:
        """A queued job's place in the queue (1: next), None for any other job."""
        if job.state is not AgentJobState.QUEUED:
            return None
        ticket = job.queue_ticket or 0
        ahead = sum(
            1
            for j in self._jobs.values()
            if j.state is AgentJobState.QUEUED and (j.queue_ticket or 0) < ticket
        )
        return ahead + 1

    def snapshot(self, job: AgentJob) -> JobSnapshot:
        notes = self._hub.notes.get(job.surface_id)
        return wire.job_snapshot(
            job,
            notes,
            self.usage_of(job),
            resumes_at=self.resumes_at(job),
            queue_position=self.queue_position(job),
            cost=self.cost_of(job),
            resources=self.resources_of(job),
        )


def _signing_in(job: AgentJob) -> bool:
    """The job waits for a human to sign its worker in (tracker's sign-in verdict)."""
    return job.state is AgentJobState.WAITING_INPUT and (job.message or "").startswith(
        core_jobs.NOT_SIGNED_IN
    )
