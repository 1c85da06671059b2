"""What control handlers see as their ``ctx``: the controller's parts behind the ports.

:class:`HandlerContext` implements :class:`mytty.control.ports.Context` (mypy checks it where
the router receives it) and holds exactly the parts the ports reach: the tmux link, the pane
registry and service, the agent hub, the job registry, integrations, the agent checks,
worktrees, the notifier, admission, the approvals broker, ``mytty resume`` and ``explain``'s
evidence. Each port is answered by the part that owns it, so the composition root
(:mod:`mytty.daemon.app`) only builds and runs parts, and a reader finds here, in one place,
which part a handler's call lands in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from mytty.control.ports import PaneView
from mytty.core.config import LimitSettings, SpawnSettings, spawn_access
from mytty.core.errors import ErrorCode
from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.hosts.state import HostState
from mytty.core.ids import RunId, SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.core.kill_guard import worker_environment
from mytty.core.limits.facts import LimitFacts
from mytty.daemon.admission.gate import AdmissionGate
from mytty.daemon.agents import AgentHub
from mytty.daemon.approvals.broker import ApprovalBroker
from mytty.daemon.clock import Clock
from mytty.daemon.explain.evidence import EvidenceService
from mytty.daemon.hosts.service import HostsService
from mytty.daemon.integration_service import IntegrationService
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.jobs.resume import ResumeService
from mytty.daemon.limits.service import LimitService
from mytty.daemon.notifier import Notifier
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.panes.service import PaneService
from mytty.daemon.preflight import AgentPreflight
from mytty.daemon.tmux_link import TmuxLink
from mytty.daemon.worktree.service import WorktreeService
from mytty.protocol.replies import (
    LimitsReply,
    NotifyTestReply,
    PaneEntry,
    ResumeReply,
    WorktreeRemovalReply,
)
from mytty.tmux.port import PaneRow, TmuxPort


class HandlerContext:
    """Every port of :mod:`mytty.control.ports`, each answered by the part that owns it."""

    def __init__(
        self,
        *,
        tmux_socket: str,
        link: TmuxLink,
        panes: PaneRegistry,
        pane_service: PaneService,
        hub: AgentHub,
        jobs: JobRegistry,
        integrations: IntegrationService,
        preflight: AgentPreflight,
        worktrees: WorktreeService,
        notifier: Notifier,
        approvals: ApprovalBroker,
        hosts: HostsService,
        evidence: EvidenceService,
        spawn_settings: Callable[[], SpawnSettings],
        now: Callable[[], float],
        admission: AdmissionGate,
        clock: Clock,
        limit_settings: Callable[[], LimitSettings],
        limit_facts: Callable[[SurfaceId, RunId], LimitFacts | None],
        launch_window: float,
    ) -> None:
        self.tmux_socket = tmux_socket
        #: The approvals broker answers the ApprovalAccess port itself.
        self.approvals = approvals
        #: Admission (``[admission]``): a spawn's claim, its launch line, the memory cap.
        self.admission = admission
        self.panes = panes
        self.hub = hub
        self.jobs = jobs
        self.integrations = integrations
        self.evidence = evidence
        self._link = link
        self._pane_service = pane_service
        self._preflight = preflight
        self._worktrees = worktrees
        self._notifier = notifier
        self._hosts = hosts
        #: config.toml's ``[spawn]`` as it is now (the file may change while the controller runs).
        self._spawn_settings = spawn_settings
        # Resuming restarts workers through this same context (new panes, the worker
        # environment, the jobs), so its service is built over it rather than beside it.
        self._resumer = ResumeService(self, now)
        # The same for parked workers: typed into through this context, restarted through
        # the resume service when their process is gone.
        self.limits = LimitService(
            self,
            restarter=self._resumer,
            clock=clock,
            settings=limit_settings,
            limit_facts=limit_facts,
            notify_item=notifier.observe_item,
            launch_window=launch_window,
        )

    # -- TmuxAccess -------------------------------------------------------------------------------
    def require_port(self) -> TmuxPort:
        return self._link.require_port()

    def pane_lock(self, surface_id: str) -> asyncio.Lock:
        return self._pane_service.pane_lock(surface_id)

    # -- PaneDirectory ----------------------------------------------------------------------------
    def require_pane(self, pane_id: str | None, code: ErrorCode = ErrorCode.PANE_NOT_FOUND) -> Pane:
        return self._pane_service.require_pane(pane_id, code)

    async def refresh_panes(self) -> list[PaneRow]:
        return await self._pane_service.refresh_panes()

    # -- PaneFacts --------------------------------------------------------------------------------
    def pane_info(self, pane: PaneView) -> PaneEntry:
        return self._pane_service.pane_info(pane)

    def pane_environment(self, surface_id: str) -> dict[str, str]:
        return self._pane_service.pane_environment(surface_id)

    def caller_surface(self, peer_pid: int) -> SurfaceId | None:
        return self._pane_service.caller_surface(peer_pid)

    def pane_directory(self, pane: PaneView) -> str | None:
        return self._pane_service.pane_directory(pane)

    def agent_in(self, pane: PaneView) -> tuple[AgentProvider | None, int | None]:
        return self._pane_service.foreground_agent(pane)

    # -- PaneFactory ------------------------------------------------------------------------------
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
    ) -> Pane:
        return await self._pane_service.create_pane(
            split_from=split_from,
            direction=direction,
            session=session,
            cwd=cwd,
            command=command,
            extra_env=extra_env,
            after_window=after_window,
            window_name=window_name,
        )

    async def close_pane(self, pane: PaneView) -> None:
        await self._pane_service.close_pane(pane)

    async def preferred_session(self) -> str:
        return await self._pane_service.preferred_session()

    async def ensure_user_session(self) -> str:
        return await self._pane_service.ensure_user_session()

    # -- AgentChecks ------------------------------------------------------------------------------
    async def attention_preflight(self, pane: PaneView) -> None:
        await self._preflight.attention_preflight(pane)

    async def job_attention_preflight(self, job: AgentJob) -> None:
        await self._preflight.job_attention_preflight(job)

    async def spawn_preflight(self, provider: WorkerProvider) -> None:
        await self._preflight.spawn_preflight(provider)

    async def binary_preflight(
        self, provider: WorkerProvider, anchor: PaneView | None, caller_pid: int
    ) -> str | None:
        return await self._preflight.binary_preflight(provider, anchor, caller_pid)

    async def access_mode_flags(
        self, worker: WorkerProvider, access: str | None, anchor: PaneView | None
    ) -> list[str]:
        # [spawn] access in config.toml stands in for a left-out --access.
        requested = spawn_access(access, self._spawn_settings())
        return await self._preflight.access_mode_flags(worker, requested, anchor)

    def worker_environment(self) -> dict[str, str]:
        return worker_environment(
            guard_on=self._spawn_settings().guard_tmux_server, tmux_socket=self.tmux_socket
        )

    async def resolve_worktree(self, base_dir: str, branch: str) -> str:
        return await self._worktrees.resolve(base_dir, branch)

    async def worktree_used(self, path: str, job_id: str) -> None:
        await self._worktrees.used_by(path, job_id)

    # -- Worktrees, Notifications, JobResumer -----------------------------------------------------
    async def remove_job_worktree(self, job_id: str) -> WorktreeRemovalReply | None:
        return await self._worktrees.remove_for_job(job_id)

    async def notify_test(self, surface_id: SurfaceId | None) -> NotifyTestReply:
        return await self._notifier.test(surface_id)

    async def resume_jobs(self, job_ids: list[str] | None, *, dry_run: bool) -> ResumeReply:
        return await self._resumer.resume(job_ids, dry_run=dry_run)

    # -- UsageLimits ------------------------------------------------------------------------------
    def limits_report(self) -> LimitsReply:
        return self.limits.report()

    def resume_parked(self, job_ids: list[str] | None) -> LimitsReply:
        return self.limits.resume_now(job_ids)

    def hold_parked(self, job_ids: list[str]) -> LimitsReply:
        return self.limits.hold(job_ids)

    def hold_send(self, job_id: str, text: str, press_enter: bool) -> bool:
        return self.limits.hold_send(job_id, text, press_enter)

    # -- HostsView --------------------------------------------------------------------------------
    def followed_hosts(self) -> list[HostState]:
        return self._hosts.followed()

    async def refresh_hosts(self, timeout: float) -> None:
        await self._hosts.refresh(timeout)
