"""A controller made of small fakes, for handler tests without a controller process or tmux.

``FakeController`` stands in for the daemon's
:class:`~mytty.daemon.handler_context.HandlerContext`, what the router hands every handler:
it implements every port of :mod:`mytty.control.ports` (mypy checks it against ``Context``
below, as it checks the real one where the controller builds its router). tmux is :class:`mytty.tmux.fake.FakeTmux`, the in-memory port that the
conformance suite holds to a real tmux server; run, attention, ledger and note state are the
real pure books of ``mytty.core``; jobs use the real tracker (``mytty.core.jobs.tracker``). What is
faked is only what needs the OS: /proc (a pane's foreground agent is set by the test), the
integration files (a status table), git worktrees and the human's consent.

Requests go through the daemon's real :class:`~mytty.daemon.server.router.ControlRouter`, so
a test sees exactly the reply (or failure) a client would get.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mytty.control.ports import AdmissionSlot, Context, PaneView
from mytty.core.admission.rules import Waiting
from mytty.core.approvals.access import HUMAN, Caller
from mytty.core.approvals.model import ApprovalRequest
from mytty.core.attention.items import AttentionBook
from mytty.core.config import ApprovalSettings
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import PROVIDER_ORDER, AgentEvent, AgentProvider, WorkerProvider
from mytty.core.explain.inputs import EventWindow, Observations, StoredEvent
from mytty.core.hosts.state import HostState
from mytty.core.ids import (
    JobId,
    RunId,
    SurfaceId,
    TmuxPaneId,
    format_uuid_bytes,
    parse_surface_id,
)
from mytty.core.jobs import tracker as core_jobs
from mytty.core.jobs.launch import launch_command
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.tracker import AgentJob
from mytty.core.runs.book import RunBook
from mytty.core.runs.ledger import EventLedger
from mytty.core.runs.notes import StatusNotes
from mytty.daemon.approvals.broker import ApprovalBroker
from mytty.daemon.server.router import ControlRouter
from mytty.protocol import wire
from mytty.protocol.replies import (
    IntegrationStatusesReply,
    JobSnapshot,
    LimitsReply,
    MemoryCapEntry,
    NotifyTestReply,
    PaneEntry,
    ResumeReply,
    WorktreeRemovalReply,
)
from mytty.tmux.fake import FakeTmux
from mytty.tmux.port import PaneRow, TmuxPort

T = TypeVar("T")

PRIVATE = "_mytty"
USER_SESSION = "mytty"


@dataclass
class FakePane:
    surface_id: SurfaceId
    tmux_id: TmuxPaneId
    pid: int
    row: PaneRow | None = None


class FakePanes:
    """The pane registry: surface id ↔ tmux pane."""

    def __init__(self) -> None:
        self.by_surface: dict[SurfaceId, FakePane] = {}

    def get(self, surface_id: str | None) -> FakePane | None:
        uuid = parse_surface_id(surface_id)
        return self.by_surface.get(uuid) if uuid else None

    def panes(self) -> list[FakePane]:
        return list(self.by_surface.values())

    def by_tmux(self, tmux_id: str) -> FakePane | None:
        return next((p for p in self.by_surface.values() if p.tmux_id == tmux_id), None)


class FakeHub:
    """The agent state: the real pure books plus the change signal the waiters sleep on."""

    def __init__(self, clock: Callable[[], float] = lambda: 1_000_000.0) -> None:
        self.now = clock
        self.book = RunBook()
        self.attention = AttentionBook()
        self.ledger = EventLedger()
        self.notes = StatusNotes()
        self._changed = asyncio.Event()
        #: Every event ingested, in order: what the store would hold (its sequence from 1).
        self.stored: list[AgentEvent] = []

    def ingest(self, event: AgentEvent) -> None:
        """Apply an event as the controller does after storing it, and wake the waiters."""
        if not self.book.seen(event.id):
            self.stored.append(event)
        result = self.book.apply(event)
        self.attention.observe(event, result)
        self.notes.observe(event)
        self.ledger.append(event)
        self.bump()

    async def acknowledge(self, item_ids: Collection[str], now: float) -> None:
        for item_id in item_ids:
            self.attention.acknowledge(item_id, now)

    def bump(self) -> None:
        fired, self._changed = self._changed, asyncio.Event()
        fired.set()

    async def wait_until(
        self,
        probe: Callable[[], T | None],
        timeout: float,
        *,
        surface_id: str | None = None,
        after_sequence: int | None = None,
        surface_ids: Collection[str] | None = None,
    ) -> tuple[T | None, bool]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout)
        while True:
            signal = self._changed
            value = probe()
            if value is not None:
                return value, False
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None, True
            try:
                await asyncio.wait_for(signal.wait(), remaining)
            except TimeoutError:
                value = probe()
                return (value, False) if value is not None else (None, True)


class FakeJobs:
    """Jobs in memory, reconciled with the real tracker on every look."""

    def __init__(self, hub: FakeHub, panes: FakePanes, clock: Callable[[], float]) -> None:
        self._hub = hub
        self._panes = panes
        self._clock = clock
        self._jobs: dict[str, AgentJob] = {}
        self._key_lock = asyncio.Lock()
        self.refreshes = 0

    def start(
        self,
        surface_id: SurfaceId,
        provider: WorkerProvider,
        label: str | None,
        baseline: Iterable[RunId],
        tags: core_jobs.SpawnTags | None = None,
    ) -> AgentJob:
        job_id = JobId(format_uuid_bytes(os.urandom(16)))
        job = core_jobs.new_job(
            job_id, surface_id, provider, label, baseline, self._clock(), tags=tags
        )
        self.add(job)
        return job

    async def spawn(
        self,
        surface_id: SurfaceId,
        provider: WorkerProvider,
        label: str | None,
        baseline: Iterable[RunId],
        tags: core_jobs.SpawnTags | None = None,
        *,
        session_id: str | None = None,
        launch: JobLaunch | None = None,
        job_id: JobId | None = None,
        queued: core_jobs.QueuedAs | None = None,
        memory_cap: tuple[int, str] | None = None,
    ) -> AgentJob:
        job = self.start(surface_id, provider, label, baseline, tags)
        del self._jobs[job.job_id]
        job = dataclasses.replace(
            job,
            job_id=job_id or job.job_id,
            session_id=session_id,
            launch=launch,
            memory_cap_mb=memory_cap[0] if memory_cap else None,
            memory_cap=memory_cap[1] if memory_cap else None,
        )
        if queued is not None:
            job = core_jobs.queue(job, queued.reason, queued.ticket, queued.message)
        self.add(job)
        return job

    async def refresh_resources(self) -> None:
        self.refreshes += 1

    def lead_cost(self, lead: SurfaceId) -> tuple[float | None, float | None, float | None]:
        return (None, None, None)

    @contextlib.asynccontextmanager
    async def key_lock(self, lead: SurfaceId | None, key: str) -> AsyncIterator[None]:
        async with self._key_lock:
            yield

    def keyed(self, lead: SurfaceId | None, key: str) -> AgentJob | None:
        for job_id in reversed(list(self._jobs)):
            job = self._jobs[job_id]
            if job.key == key and job.lead == lead:
                current = self.current(job_id)
                if core_jobs.holds_key(current):
                    return current
        return None

    def add(self, job: AgentJob) -> None:
        self._jobs[job.job_id] = job

    def mark_closed(self, job_id: str) -> None:
        job = self.current(job_id)
        if job.launch is not None:
            self._jobs[job_id] = dataclasses.replace(job, launch=job.launch.closed_now())

    def current(self, job_id: str) -> AgentJob:
        job = self._jobs.get(job_id)
        if job is None:
            raise MyttyError(ErrorCode.JOB_NOT_FOUND, f"no job {job_id!r}")
        runs = self._hub.book.runs_for(job.surface_id, job.provider.agent_provider)
        exists = job.surface_id in self._panes.by_surface
        updated = core_jobs.reconcile(job, runs, exists, self._clock())
        if updated.park is not None and not updated.park.settled:
            # What the real limits service does once the provider's record was read.
            updated = dataclasses.replace(
                updated, park=dataclasses.replace(updated.park, settled=True)
            )
        self._jobs[job_id] = updated
        return updated

    def ids(self) -> list[str]:
        return list(self._jobs)

    def re_arm(self, job_id: str) -> AgentJob:
        job = self.current(job_id)
        runs = self._hub.book.runs_for(job.surface_id, job.provider.agent_provider)
        updated = core_jobs.prepare_for_follow_up(job, [r.id for r in runs], self._clock())
        self._jobs[job_id] = updated
        return updated

    def snapshot(self, job: AgentJob) -> JobSnapshot:
        position = None
        if job.state is core_jobs.AgentJobState.QUEUED:
            ahead = [j for j in self._jobs.values() if j.state is job.state]
            position = sum(1 for j in ahead if (j.queue_ticket or 0) < (job.queue_ticket or 0)) + 1
        return wire.job_snapshot(job, self._hub.notes.get(job.surface_id), queue_position=position)

    def label_for_pane(self, surface_id: SurfaceId) -> str | None:
        job = self.newest_in_pane(surface_id)
        return job.label if job is not None else None

    def newest_in_pane(self, surface_id: SurfaceId) -> AgentJob | None:
        for job in reversed(self._jobs.values()):
            if job.surface_id == surface_id:
                return job
        return None


class FakeApprovalStore:
    """The approvals' rows and approvers in memory (what the store's tables hold)."""

    def __init__(self) -> None:
        self.rows: dict[str, ApprovalRequest] = {}
        self.approvers: dict[str, str] = {}

    def save_approval_soon(self, request: ApprovalRequest) -> asyncio.Future[object]:
        self.rows[request.id] = request
        done: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done

    async def set_approver(self, job_id: str, approver: str) -> None:
        self.approvers[job_id] = approver

    def read_approvals(self, since: float, limit: int) -> list[ApprovalRequest]:
        rows = [r for r in self.rows.values() if r.requested_at >= since]
        return sorted(rows, key=lambda r: r.requested_at, reverse=True)[:limit]


class AsyncHub:
    """The hub's ``ingest`` as the broker awaits it (the fake hub applies at once)."""

    def __init__(self, hub: FakeHub) -> None:
        self._hub = hub
        self.seen: set[str] = set()

    async def ingest(self, event: AgentEvent) -> bool:
        if event.id in self.seen:
            return False
        self.seen.add(event.id)
        self._hub.ingest(event)
        return True


@dataclass
class FakeSlot:
    ticket: int
    waiting: Waiting | None


class FakeAdmission:
    """Admission that admits everything, unless a test sets ``waiting`` (then every claim
    must wait for that); ``cap`` is what a memory cap adds to the reply."""

    def __init__(self) -> None:
        self.waiting: Waiting | None = None
        self.claims: list[tuple[WorkerProvider, SurfaceId | None, bool]] = []
        self.released: list[tuple[int, str | None]] = []
        self.cap: MemoryCapEntry | None = None

    def claim(
        self, provider: WorkerProvider, lead: SurfaceId | None, *, paced: bool = False
    ) -> FakeSlot:
        self.claims.append((provider, lead, paced))
        return FakeSlot(len(self.claims), self.waiting)

    def resumption_started(self) -> None:
        pass

    def release(self, slot: AdmissionSlot, job: AgentJob | None = None) -> None:
        self.released.append((slot.ticket, job.job_id if job is not None else None))

    def position_hint(self, slot: AdmissionSlot) -> int:
        return slot.ticket

    async def worker_launch(
        self, job_id: str, resumed: int, argv: Sequence[str]
    ) -> tuple[str, tuple[int, str] | None]:
        return launch_command(argv), None

    async def memory_cap_entry(self) -> MemoryCapEntry | None:
        return self.cap


class FakeEvidence:
    """``explain``'s evidence: the hub's ingested events as the store, observations by pane."""

    def __init__(self, hub: FakeHub, panes: FakePanes) -> None:
        self._hub = hub
        self._panes = panes
        #: What /proc, the estimator and the shell would show, by pane (default: nothing).
        self.observed: dict[SurfaceId, Observations] = {}

    async def recent_events(self, run_ids: Sequence[RunId], per_run: int) -> EventWindow:
        stored = list(enumerate(self._hub.stored, start=1))
        picked: list[StoredEvent] = []
        more: set[RunId] = set()
        for run_id in dict.fromkeys(run_ids):
            mine = [StoredEvent(seq, e) for seq, e in stored if e.run_id == run_id]
            if len(mine) > per_run:
                more.add(run_id)
            picked += mine[-per_run:]
        picked.sort(key=lambda s: s.sequence)
        return EventWindow(tuple(picked), frozenset(more))

    def observations(self, surface_id: SurfaceId, since: float | None) -> Observations:
        if surface_id not in self._panes.by_surface:
            return Observations(pane_alive=False)
        return self.observed.get(surface_id, Observations(pane_alive=True))


class FakeIntegrations:
    """Integration statuses from a table; a change always needs a human who never answers."""

    def __init__(self) -> None:
        self.statuses: dict[AgentProvider, str] = dict.fromkeys(PROVIDER_ORDER, "installed")

    async def status(self, provider: AgentProvider) -> str:
        return self.statuses[provider]

    async def wire(self) -> IntegrationStatusesReply:
        return wire.integration_statuses(
            wire.integration_list_entry(wire.integration_entry(p, self.statuses[p], None))
            for p in PROVIDER_ORDER
        )

    async def enable_with_consent(
        self, providers: list[AgentProvider], *, repair: bool
    ) -> IntegrationStatusesReply:
        if all(self.statuses[p] == "installed" for p in providers):
            return await self.wire()
        raise MyttyError(ErrorCode.INTEGRATION_DECLINED, "nobody is attached to approve it")

    async def repair_with_consent(self, provider: AgentProvider | None) -> IntegrationStatusesReply:
        broken = [p for p in PROVIDER_ORDER if self.statuses[p] == "needs-repair"]
        return await self.enable_with_consent([provider] if provider else broken, repair=True)


@dataclass
class Created:
    """One pane the controller was asked to create (what a handler passed)."""

    surface_id: SurfaceId
    split_from: SurfaceId | None
    direction: str
    session: str | None
    cwd: str | None
    command: str | None


@dataclass
class FakeController:
    """Every port of ``mytty.control.ports``, over a FakeTmux and the pure books (the fake of
    ``HandlerContext``: the attributes ``panes``, ``hub``, ``jobs`` and ``integrations`` are
    the parts it holds, the methods answer as those parts would)."""

    tmux: FakeTmux = field(default_factory=FakeTmux)
    tmux_socket: str = "/tmp/fake-tmux/default"
    clock: Callable[[], float] = field(default=lambda: 1_000_000.0)
    port_up: bool = True
    #: The agent a pane's foreground process is (what /proc would say), by surface id.
    foreground: dict[SurfaceId, AgentProvider] = field(default_factory=dict)
    #: Providers whose binary is on no PATH.
    missing_binaries: set[WorkerProvider] = field(default_factory=set)
    #: base directory → worktree directory resolve_worktree answers with.
    worktrees: dict[str, str] = field(default_factory=dict)
    #: (worktree path, job id) pairs worktree_used was told about.
    worktree_jobs: list[tuple[str, str]] = field(default_factory=list)
    #: job id → what remove_job_worktree answers (absent: mytty made no worktree for it).
    worktree_removals: dict[str, WorktreeRemovalReply] = field(default_factory=dict)
    #: The panes ``notify_test`` was asked for (None: a caller outside any mytty pane).
    notify_tests: list[SurfaceId | None] = field(default_factory=list)
    hosts: list[HostState] = field(default_factory=list)
    host_refreshes: list[float] = field(default_factory=list)
    resume_requests: list[tuple[list[str] | None, bool]] = field(default_factory=list)
    #: ``agent send``s held for parked jobs: (job id, text, pressEnter).
    held_sends: list[tuple[str, str, bool]] = field(default_factory=list)
    #: ``limits resume`` / ``limits hold`` requests: (what, job ids; None: --all).
    limit_requests: list[tuple[str, list[str] | None]] = field(default_factory=list)
    #: pid → surface of the pane whose shell is its ancestor.
    callers: dict[int, SurfaceId] = field(default_factory=dict)
    #: pid → who the approvals broker takes that caller for (absent: a person).
    approval_callers: dict[int, Caller] = field(default_factory=dict)
    #: ``[approvals]`` as config.toml would say it.
    approval_settings: ApprovalSettings = field(default_factory=ApprovalSettings)
    #: Where ``--always`` writes its rule.
    config_file: str = "/nonexistent/mytty/config.toml"
    created: list[Created] = field(default_factory=list)

    def __post_init__(self) -> None:
        from pathlib import Path

        self.panes = FakePanes()
        self.hub = FakeHub(lambda: self.clock())
        self.jobs = FakeJobs(self.hub, self.panes, lambda: self.clock())
        self.integrations = FakeIntegrations()
        self.admission = FakeAdmission()
        self.evidence = FakeEvidence(self.hub, self.panes)
        self._locks: dict[SurfaceId, asyncio.Lock] = {}
        self.approval_store = FakeApprovalStore()
        self.async_hub = AsyncHub(self.hub)
        self.approvals = ApprovalBroker(
            hub=self.async_hub,
            store=self.approval_store,
            jobs=self.jobs,
            panes=self.panes,
            settings=lambda: self.approval_settings,
            now=lambda: self.clock(),
            hook_timeout=lambda provider: 630.0,
            require_port=self.require_port,
            pane_lock=self.pane_lock,
            run_state=lambda run_id: (
                run.state if (run := self.hub.book.get(RunId(run_id))) is not None else None
            ),
            config_file=Path(self.config_file),
            location=lambda surface: None,
            classify=lambda pid: self.approval_callers.get(pid, Caller(HUMAN)),
        )

    # -- requests -----------------------------------------------------------------------------
    async def request(self, obj: dict[str, Any], peer_pid: int = 0) -> dict[str, Any]:
        """One request through the real router; the reply as the client decodes it."""
        router = ControlRouter(self)
        reply = await router.dispatch(json.dumps(obj).encode(), peer_pid)
        decoded: dict[str, Any] = json.loads(json.dumps(reply))
        return decoded

    # -- TmuxAccess ---------------------------------------------------------------------------
    def require_port(self) -> TmuxPort:
        if not self.port_up:
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, "the fake tmux server is down")
        return self.tmux

    def pane_lock(self, surface_id: SurfaceId) -> asyncio.Lock:
        return self._locks.setdefault(surface_id, asyncio.Lock())

    # -- PaneDirectory ------------------------------------------------------------------------
    def require_pane(
        self, pane_id: str | None, code: ErrorCode = ErrorCode.PANE_NOT_FOUND
    ) -> FakePane:
        self.require_port()
        pane = self.panes.get(pane_id)
        if pane is None:
            raise MyttyError(code, f"no pane with id {pane_id!r}")
        return pane

    async def refresh_panes(self) -> Sequence[PaneRow]:
        rows = await self.require_port().list_panes()
        live = [r for r in rows if r.session_name != PRIVATE]
        seen: set[str] = set()
        for row in live:
            seen.add(row.pane_id)
            pane = self.panes.by_tmux(row.pane_id)
            if pane is None:
                surface = parse_surface_id(row.surface) or _new_surface()
                pane = self.panes.by_surface[surface] = FakePane(surface, row.pane_id, row.pane_pid)
            pane.row = row
        for pane in self.panes.panes():
            if pane.tmux_id not in seen:
                del self.panes.by_surface[pane.surface_id]
        return rows

    # -- PaneFacts ------------------------------------------------------------------------------
    def pane_info(self, pane: PaneView) -> PaneEntry:
        assert pane.row is not None
        provider = self.foreground.get(pane.surface_id)
        command = provider.value if provider is not None else pane.row.current_command
        run = self.hub.book.most_relevant(pane.surface_id)
        return wire.pane_entry(
            pane.surface_id, pane.row, command, run, self.hub.notes.get(pane.surface_id)
        )

    def pane_environment(self, surface_id: SurfaceId) -> dict[str, str]:
        return {"MYTTY_SURFACE_ID": surface_id, "MYTTY_EVENT_CAPABILITY": f"cap-{surface_id}"}

    def caller_surface(self, peer_pid: int) -> SurfaceId | None:
        return self.callers.get(peer_pid)

    def pane_directory(self, pane: PaneView) -> str | None:
        return pane.row.current_path if pane.row is not None and pane.row.current_path else None

    # -- PaneFactory ----------------------------------------------------------------------------
    async def create_pane(
        self,
        *,
        split_from: PaneView | None = None,
        direction: str = "right",
        session: str | None = None,
        cwd: str | None,
        command: str | None,
        extra_env: dict[str, str] | None = None,
        after_window: str | None = None,
        window_name: str | None = None,
    ) -> FakePane:
        port = self.require_port()
        surface = _new_surface()
        env = {**self.pane_environment(surface), **(extra_env or {})}

        def register(tmux_id: TmuxPaneId, pid: int) -> None:
            self.panes.by_surface[surface] = FakePane(surface, tmux_id, pid)

        if split_from is not None:
            await port.split(
                split_from.tmux_id,
                direction,
                cwd=cwd,
                env=env,
                command="exec sleep 9",
                on_created=register,
            )
        else:
            await port.new_window(
                session or USER_SESSION,
                cwd=cwd,
                env=env,
                command="exec sleep 9",
                on_created=register,
            )
        self.created.append(
            Created(
                surface,
                split_from.surface_id if split_from is not None else None,
                direction,
                session,
                cwd,
                command,
            )
        )
        await self.refresh_panes()
        return self.panes.by_surface[surface]

    async def close_pane(self, pane: PaneView) -> None:
        await self.require_port().kill_pane(pane.tmux_id)
        await self.refresh_panes()

    async def preferred_session(self) -> str:
        return USER_SESSION

    async def ensure_user_session(self) -> str:
        if not await self.require_port().has_session(USER_SESSION):
            self.tmux.add_session(USER_SESSION)
            await self.refresh_panes()
        return USER_SESSION

    # -- AgentChecks ----------------------------------------------------------------------------
    async def attention_preflight(self, pane: PaneView) -> None:
        provider = self.foreground.get(pane.surface_id)
        if provider is not None and await self.integrations.status(provider) == "not-installed":
            raise MyttyError(ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED, f"{provider} has none")

    async def job_attention_preflight(self, job: AgentJob) -> None:
        provider = job.provider.agent_provider
        if await self.integrations.status(provider) == "not-installed":
            raise MyttyError(ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED, f"{provider} has none")

    async def spawn_preflight(self, provider: WorkerProvider) -> None:
        agent = provider.agent_provider
        if await self.integrations.status(agent) == "needs-repair":
            raise MyttyError(ErrorCode.PROVIDER_INTEGRATION_NEEDS_REPAIR, f"{agent} is broken")

    async def binary_preflight(
        self, provider: WorkerProvider, anchor: PaneView | None, caller_pid: int
    ) -> str | None:
        if provider in self.missing_binaries:
            raise MyttyError(ErrorCode.PROVIDER_BINARY_NOT_FOUND, f"no {provider} on PATH")
        return None

    async def resolve_worktree(self, base_dir: str, branch: str) -> str:
        found = self.worktrees.get(base_dir)
        if found is None:
            raise MyttyError(ErrorCode.NOT_A_GIT_REPOSITORY, f"{base_dir} is not in a git repo")
        return found

    async def worktree_used(self, path: str, job_id: str) -> None:
        self.worktree_jobs.append((path, job_id))

    async def remove_job_worktree(self, job_id: str) -> WorktreeRemovalReply | None:
        return self.worktree_removals.get(job_id)

    async def notify_test(self, surface_id: SurfaceId | None) -> NotifyTestReply:
        self.notify_tests.append(surface_id)
        return {"type": "notifyTest", "channels": [], "notification": {}}

    def followed_hosts(self) -> list[HostState]:
        return list(self.hosts)

    async def refresh_hosts(self, timeout: float) -> None:
        self.host_refreshes.append(timeout)

    async def resume_jobs(self, job_ids: list[str] | None, *, dry_run: bool) -> ResumeReply:
        """What was asked, recorded; named jobs are looked up (job-not-found) like the real one."""
        for job_id in job_ids or []:
            self.jobs.current(job_id)
        self.resume_requests.append((job_ids, dry_run))
        return {"type": "resume", "dryRun": dry_run, "jobs": []}

    # -- UsageLimits (the planning itself is tested on mytty.daemon.limits) -------------------
    def _parked(self) -> list[AgentJob]:
        jobs = [self.jobs.current(job_id) for job_id in self.jobs.ids()]
        return [job for job in jobs if job.state is core_jobs.AgentJobState.PARKED]

    def limits_report(self) -> LimitsReply:
        return wire.limits_reply([], [wire.limit_job_entry(job, None) for job in self._parked()])

    def _require_parked(self, job_ids: list[str] | None) -> None:
        for job_id in job_ids or []:
            job = self.jobs.current(job_id)
            if job.state is not core_jobs.AgentJobState.PARKED:
                raise MyttyError(ErrorCode.JOB_NOT_PARKED, f"job {job_id} is not parked")

    def resume_parked(self, job_ids: list[str] | None) -> LimitsReply:
        self._require_parked(job_ids)
        self.limit_requests.append(("resume", job_ids))
        return self.limits_report()

    def hold_parked(self, job_ids: list[str]) -> LimitsReply:
        self._require_parked(job_ids)
        self.limit_requests.append(("hold", job_ids))
        return self.limits_report()

    def hold_send(self, job_id: str, text: str, press_enter: bool) -> bool:
        if self.jobs.current(job_id).state is not core_jobs.AgentJobState.PARKED:
            return False
        self.held_sends.append((job_id, text, press_enter))
        return True

    def worker_environment(self) -> dict[str, str]:
        return {"MYTTY_WORKER": "1", "MYTTY_TMUX_GUARD": "/fake/tmux.sock"}

    async def access_mode_flags(
        self, worker: WorkerProvider, access: str | None, anchor: PaneView | None
    ) -> list[str]:
        return [f"--fake-access={access or 'default'}"]


def _new_surface() -> SurfaceId:
    return SurfaceId(format_uuid_bytes(os.urandom(16)))


def _conforms(controller: FakeController) -> Context:
    """Checked by mypy: the fake provides every port the router hands to handlers."""
    return controller
