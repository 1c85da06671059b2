"""The composition root: builds the controller's parts, wires them, runs them in one TaskGroup.

Startup order matters: the store is replayed before anything can read run state, tmux is
connected and every pane has an identity before the startup sweep decides which runs are
dead, and only then do the sockets open.

The parts, each in its own module: :mod:`~mytty.daemon.lifecycle` (the lock),
:mod:`~mytty.daemon.tmux_link` (the tmux connection and hooks),
:mod:`~mytty.daemon.panes.service` (the pane set; creating and describing panes),
:mod:`~mytty.daemon.panes.sweep` (the startup sweep), :mod:`~mytty.daemon.preflight` (checks the
agent commands make). :class:`Controller` is what control handlers see as their context
(``mytty.control.base.Context``); its methods delegate to those parts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from mytty.control.ports import PaneView
from mytty.core.config import spawn_access
from mytty.core.errors import ErrorCode
from mytty.core.events import AgentEvent, AgentProvider, WorkerProvider
from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.core.kill_guard import worker_environment
from mytty.daemon.agents import AgentHub, settle_heap
from mytty.daemon.clock import DEFAULT_TIMINGS, Clock, SystemClock, Timings
from mytty.daemon.config.load import Settings, load_settings
from mytty.daemon.config.watch import ConfigWatcher
from mytty.daemon.estimation.cursor_approval import CursorApprovalEstimator
from mytty.daemon.estimation.detect import AgentDetector
from mytty.daemon.estimation.estimator import NativeEstimator
from mytty.daemon.estimation.shell_events import ShellEventWatcher
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.events.ingest import EventIngest
from mytty.daemon.home import Home
from mytty.daemon.integration_service import IntegrationService
from mytty.daemon.jobs.lead_inbox import LeadInbox
from mytty.daemon.jobs.registry import FINISHED_JOBS_IN_MEMORY, JobRegistry
from mytty.daemon.jobs.resume import ResumeService
from mytty.daemon.lifecycle import ControllerLock, write_guide
from mytty.daemon.notifier import Notifier
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.panes.service import PaneService
from mytty.daemon.panes.sweep import startup_sweep
from mytty.daemon.preflight import AgentPreflight
from mytty.daemon.server.router import ControlRouter
from mytty.daemon.server.sockets import OneShotServer, Peer
from mytty.daemon.store import EventStore, StoreError
from mytty.daemon.tmux_link import TmuxLink
from mytty.daemon.tmux_publish import TmuxPublisher
from mytty.daemon.transcripts.reader import IngestSoon, TranscriptReader
from mytty.daemon.transcripts.usage import UsageBook
from mytty.daemon.transcripts.watch import TranscriptWatcher
from mytty.daemon.welcome import welcome_command
from mytty.daemon.worktree.service import WorktreeService
from mytty.protocol.control import encode_reply, failure
from mytty.protocol.envelope import encode_event_reply
from mytty.protocol.replies import NotifyTestReply, PaneEntry, ResumeReply, WorktreeRemovalReply
from mytty.tmux.port import PaneRow, TmuxPort

log = logging.getLogger(__name__)


class Controller:
    def __init__(
        self,
        home: Home,
        tmux_socket: str,
        *,
        ctl_bin: str,
        clock: Clock | None = None,
        timings: Timings = DEFAULT_TIMINGS,
        settings: Settings | None = None,
    ) -> None:
        #: config.toml, read at start (defaults written on first start; tests may pass their
        #: own) and again whenever it is saved (:class:`ConfigWatcher`). Its warnings go to
        #: the log when the controller runs.
        self.config_warnings: list[str] = []
        if settings is None:
            settings, self.config_warnings = load_settings(home.root)
        self.settings: Settings = settings
        #: Every rule's "now" and "in N seconds" (launch windows, the Cursor estimate,
        #: attention): the real clock unless a test passes its own.
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.home = home
        self.tmux_socket = tmux_socket
        self.ctl_bin = ctl_bin
        self._lock = ControllerLock(home)
        self.store = EventStore(home.store)
        self.hub = AgentHub(self.store, clock=self.clock.now)
        self.panes = PaneRegistry(b"")  # keyed with the home's secret once the lock is held
        self.link = TmuxLink(
            tmux_socket,
            global_env={
                "MYTTY_CTL_BIN": ctl_bin,
                "MYTTY_CONTROL_SOCKET": str(home.control_socket),
            },
        )
        self.shell_events = ShellEventWatcher(
            home.shell_events_dir,
            authorize=self.panes.authorize,
            is_live=lambda surface: surface in self.panes.by_surface,
            clock=self.clock.now,
        )
        self.pane_service = PaneService(
            home=home,
            ctl_bin=ctl_bin,
            panes=self.panes,
            hub=self.hub,
            require_port=self.link.require_port,
            shell_events=self.shell_events,
            detector=AgentDetector(),
        )
        # A fresh home's first `mytty` session greets the human (once per home).
        self.pane_service.first_command = lambda: welcome_command(
            home, self.settings.tmux.popup_key
        )
        self.codex_router = CodexRouter(
            panes=self.panes,
            foreground_agent=self.pane_service.foreground_agent,
            clock=self.clock.now,
        )
        self.jobs = JobRegistry(
            hub=self.hub,
            panes=self.panes,
            foreground_agent=self.pane_service.foreground_agent,
            codex_router=self.codex_router,
            clock=self.clock,
            launch_window=timings.launch_window,
            store=self.store,
        )
        self.resumer = ResumeService(self, self.clock.now)
        self._stop = asyncio.Event()
        self._servers: list[OneShotServer] = []
        self.cursor_approval = CursorApprovalEstimator(
            self.hub.ingest, self.clock, threshold=timings.cursor_approval
        )
        self.router = ControlRouter(self)
        self.integrations = IntegrationService(
            require_port=self.link.require_port, tmux_socket=tmux_socket
        )
        self.preflight = AgentPreflight(
            panes=self.pane_service, integrations=self.integrations, hub=self.hub
        )
        self.worktrees = WorktreeService(home)
        self.notifier = Notifier(
            self.settings.notify,
            hub=self.hub,
            panes=self.panes,
            label_for_pane=self.jobs.label_for_pane,
            port=lambda: self.link.port,
            now=self.clock.now,
        )
        self.jobs.on_attention_item = self.notifier.observe_item
        self.config_watch = ConfigWatcher(home.root, lambda: self.settings, self.apply_settings)
        # Transcripts: turns for the estimator, Claude's Esc, usage and budgets per job.
        self.usage = UsageBook(
            hub=self.hub,
            newest_job=self.jobs.newest_in_pane,
            interrupt=self._press_escape,
            store=self.store,
        )
        self.jobs.usage_of = self.usage.entry
        self.transcript_events = IngestSoon(self.hub.ingest, settle=self.jobs.settle_pane)
        self.transcripts = TranscriptReader(
            emit=self._transcript_emit,
            on_usage=self.usage.pane_usage,
            clock=self.clock.now,
            session_hint=self.jobs.session_in_pane,
        )
        self.transcript_watch = TranscriptWatcher(
            reader=self.transcripts,
            book=self.hub.book,
            panes=lambda: self.panes.by_surface,
            foreground_agent=self.pane_service.foreground_agent,
            newest_job=self.jobs.newest_in_pane,
        )
        self.estimator = NativeEstimator(
            hub=self.hub,
            panes=self.panes,
            clock=self.clock,
            integration_status=self.integrations.status,
            timings=timings,
            detector=self.pane_service.detector,
            turns=self.transcripts,
        )
        self.ingest = EventIngest(
            hub=self.hub,
            panes=self.panes,
            route_codex=self.codex_router.route,
            lead_notices=LeadInbox(self.jobs).take,  # agent spawn --notify-lead
        )
        self.publisher = TmuxPublisher(
            hub=self.hub,
            panes=self.panes,
            jobs_by_pane=self.jobs.newest_by_pane,
            port=lambda: self.link.port,
            tokens_of=self._job_tokens,
        )

    def _job_tokens(self, job: AgentJob) -> int | None:
        usage = self.jobs.usage_of(job)  # set once the usage book exists
        return usage["totalTokens"] if usage is not None else None

    # ----------------------------------------------------------------------------------------
    # lifecycle
    # ----------------------------------------------------------------------------------------
    async def run(self, on_ready: Callable[[], None] | None = None) -> None:
        self._lock.acquire()
        try:
            await self._run(on_ready)
        finally:
            self._lock.release()

    async def _run(self, on_ready: Callable[[], None] | None) -> None:
        loop = asyncio.get_running_loop()
        for warning in self.config_warnings:
            log.warning("%s: %s", self.home.config_file, warning)
        self.panes.set_secret(self.home.read_or_create_secret())
        self.store.open()
        self.panes.load_bindings(self.store.load_surface_bindings())
        self.hub.restore(self.store.load_state())
        self.jobs.load(self.store.load_jobs(FINISHED_JOBS_IN_MEMORY))
        self.usage.load(self.store.load_usage())
        settle_heap()  # everything alive now lives as long as the process
        self.store.start_writer(loop)
        self.hub.add_observer(self.cursor_approval.observe)
        self.hub.add_observer(self.transcript_watch.observe_event)
        self.transcript_watch.start(loop)
        try:
            await self.link.connect(self.pane_service, first=True)
            self._wire_estimator()
            await self.estimator.restore()  # before the sweep: runs whose agent still runs stay
            await startup_sweep(
                self.hub, self.panes, self.clock.now(), agent_alive=self.estimator.agent_alive
            )
            await self.jobs.sweep()  # after the panes are known: a job whose pane went is lost
            self.notifier.start()  # after the sweep: what it found is no news (no storm)
            try:
                self.shell_events.start(loop)  # every pane has its identity by now
            except OSError as exc:  # no inotify, an unusable directory: run without it
                log.warning("shell integration events are off: %s", exc)
            try:
                self.config_watch.start(loop)
            except OSError as exc:
                log.warning("config.toml is read at start only: %s", exc)
            await self.hub.prune()
            await self._save_snapshot()  # the next start reads this, not the replayed tail
            write_guide(self.home)
            self._servers = [
                OneShotServer(
                    self.home.control_socket,
                    self._handle_control,
                    too_large_reply=encode_reply(
                        failure(ErrorCode.REQUEST_TOO_LARGE, "requests are limited to 64 KiB")
                    ),
                    foreign_peer_reply=encode_reply(
                        failure(ErrorCode.PERMISSION_DENIED, "another user's process was refused")
                    ),
                    name="control",
                    watch_hangups=True,  # its long polls end when their client goes
                    rules=ControlRouter.BUDGET_RULES,  # fair shares, too-many-requests
                ),
                OneShotServer(
                    self.home.event_socket,
                    self.ingest.handle,
                    too_large_reply=encode_event_reply(error=ErrorCode.REQUEST_TOO_LARGE),
                    foreign_peer_reply=encode_event_reply(error=ErrorCode.UNAUTHORIZED),
                    name="events",
                ),
            ]
            for server in self._servers:
                await server.start()
            log.info("mytty controller ready (home %s, tmux %s)", self.home.root, self.tmux_socket)
            if on_ready is not None:
                on_ready()
            async with asyncio.TaskGroup() as tg:
                tg.create_task(
                    self.link.reconcile_forever(self.pane_service.refresh_panes), name="reconcile"
                )
                tg.create_task(self.link.supervise(self.pane_service), name="tmux-supervisor")
                tg.create_task(self.hub.prune_forever(), name="prune")
                tg.create_task(self.publisher.run(), name="tmux-publish")
                tg.create_task(self.estimator.run(), name="estimator")
                tg.create_task(self._wait_for_stop(), name="stop")
        except* _Stop:
            pass
        finally:
            await self._shutdown()

    def _transcript_emit(self, event: AgentEvent) -> None:
        # The estimator sees the reader's events too (a Codex API error fails the turn it asks about).
        self.estimator.source_emitted(event)
        self.transcript_events(event)

    def _wire_estimator(self) -> None:
        self.estimator.attach()
        self.jobs.successor_run = self.estimator.machine.successor
        self.pane_service.pane_gone_listeners.append(self.estimator.pane_gone)
        self.pane_service.last_detection = self.estimator.detection  # list: no /proc per pane
        self.pane_service.pane_gone_listeners.append(self.transcripts.forget)
        self.shell_events.add_listener(self.estimator.on_shell_event)

    def apply_settings(self, settings: Settings) -> None:
        """config.toml changed: notifications follow it from now on, spawns from the next one.

        ``[tmux]`` and ``[resume]`` are read by the commands that use them (``mytty tmux
        install``, ``mytty up``/``start``/``resume``), so they need nothing here.
        """
        self.settings = settings
        self.notifier.update(settings.notify)

    def request_stop(self) -> None:
        self._stop.set()

    async def _wait_for_stop(self) -> None:
        await self._stop.wait()
        raise _Stop

    async def _shutdown(self) -> None:
        for server in self._servers:
            await server.close()
        self.cursor_approval.cancel_all()
        self.config_watch.close()
        await self.notifier.close()
        self.estimator.close()
        self.shell_events.close()
        self.transcript_watch.close()
        await self.publisher.clear()
        await self.link.close()
        await self.jobs.flush()
        await self.transcript_events.flush()
        await self.usage.flush()
        await self._save_snapshot()
        self.store.close()
        if self._servers:
            log.info("mytty controller stopped")

    async def _save_snapshot(self) -> None:
        try:
            await self.hub.save_snapshot()
        except StoreError as exc:  # a restart then replays a little more; nothing is lost
            log.warning("could not store the books' snapshot: %s", exc)

    async def _handle_control(self, body: bytes, peer: Peer) -> bytes:
        return encode_reply(await self.router.dispatch(body, peer.pid))

    # ----------------------------------------------------------------------------------------
    # the handlers' context (mytty.control.base.Context): delegation only
    # ----------------------------------------------------------------------------------------
    @property
    def port(self) -> TmuxPort | None:
        return self.link.port

    def require_port(self) -> TmuxPort:
        return self.link.require_port()

    def require_pane(self, pane_id: str | None, code: ErrorCode = ErrorCode.PANE_NOT_FOUND) -> Pane:
        return self.pane_service.require_pane(pane_id, code)

    def pane_lock(self, surface_id: str) -> asyncio.Lock:
        return self.pane_service.pane_lock(surface_id)

    def foreground_agent(self, pane: PaneView) -> tuple[AgentProvider | None, int | None]:
        return self.pane_service.foreground_agent(pane)

    def pane_info(self, pane: PaneView) -> PaneEntry:
        return self.pane_service.pane_info(pane)

    def pane_environment(self, surface_id: str) -> dict[str, str]:
        return self.pane_service.pane_environment(surface_id)

    async def notify_test(self, surface_id: SurfaceId | None) -> NotifyTestReply:
        return await self.notifier.test(surface_id)

    def caller_surface(self, peer_pid: int) -> SurfaceId | None:
        return self.pane_service.caller_surface(peer_pid)

    def pane_directory(self, pane: PaneView) -> str | None:
        return self.pane_service.pane_directory(pane)

    async def refresh_panes(self) -> list[PaneRow]:
        return await self.pane_service.refresh_panes()

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
        return await self.pane_service.create_pane(
            split_from=split_from,
            direction=direction,
            session=session,
            cwd=cwd,
            command=command,
            extra_env=extra_env,
            after_window=after_window,
            window_name=window_name,
        )

    async def ensure_user_session(self) -> str:
        return await self.pane_service.ensure_user_session()

    async def close_pane(self, pane: PaneView) -> None:
        await self.pane_service.close_pane(pane)

    async def preferred_session(self) -> str:
        return await self.pane_service.preferred_session()

    async def attention_preflight(self, pane: PaneView) -> None:
        await self.preflight.attention_preflight(pane)

    async def job_attention_preflight(self, job: AgentJob) -> None:
        await self.preflight.job_attention_preflight(job)

    async def spawn_preflight(self, provider: WorkerProvider) -> None:
        await self.preflight.spawn_preflight(provider)

    def binary_preflight(
        self, provider: WorkerProvider, anchor: PaneView | None, caller_pid: int
    ) -> None:
        self.preflight.binary_preflight(provider, anchor, caller_pid)

    async def resolve_worktree(self, base_dir: str, branch: str) -> str:
        return await self.worktrees.resolve(base_dir, branch)

    async def worktree_used(self, path: str, job_id: str) -> None:
        await self.worktrees.used_by(path, job_id)

    async def resume_jobs(self, job_ids: list[str] | None, *, dry_run: bool) -> ResumeReply:
        return await self.resumer.resume(job_ids, dry_run=dry_run)

    def worker_environment(self) -> dict[str, str]:
        return worker_environment(
            guard_on=self.settings.spawn.guard_tmux_server, tmux_socket=self.tmux_socket
        )

    async def remove_job_worktree(self, job_id: str) -> WorktreeRemovalReply | None:
        return await self.worktrees.remove_for_job(job_id)

    async def access_mode_flags(
        self, worker: WorkerProvider, access: str | None, anchor: PaneView | None
    ) -> list[str]:
        # [spawn] access in config.toml stands in for a left-out --access.
        requested = spawn_access(access, self.settings.spawn)
        return await self.preflight.access_mode_flags(worker, requested, anchor)

    async def _press_escape(self, surface_id: SurfaceId) -> None:
        """Esc into a pane, as ``send-key PANE Escape`` does (a job used up its token budget)."""
        pane = self.panes.by_surface.get(surface_id)
        if pane is not None:
            async with self.pane_lock(surface_id):
                await self.require_port().send_key(pane.tmux_id, "Escape")

    def route_codex(self, event: AgentEvent) -> AgentEvent | None:
        """Place a codex event on a pane by its sessionID; None when it can't be placed exactly."""
        return self.codex_router.route(event)


class _Stop(Exception):
    pass
