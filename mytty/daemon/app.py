"""The composition root: builds the controller's parts, wires them, runs them in one TaskGroup.

Startup order matters: the store is replayed before anything can read run state, tmux is
connected and every pane has an identity before the startup sweep decides which runs are
dead, and only then do the sockets open.

The parts, each in its own module: :mod:`~mytty.daemon.lifecycle` (the lock),
:mod:`~mytty.daemon.tmux_link` (the tmux connection and hooks),
:mod:`~mytty.daemon.panes.service` (the pane set; creating and describing panes),
:mod:`~mytty.daemon.panes.sweep` (the startup sweep), :mod:`~mytty.daemon.preflight` (checks the
agent commands make). Control handlers see them through
:class:`~mytty.daemon.handler_context.HandlerContext` (``mytty.control.ports.Context``), which
this module builds like any other part.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from mytty.core.approvals.access import Caller
from mytty.core.attention.items import AttentionItem
from mytty.core.cost.prices import ModelPrice
from mytty.core.cost.pricing import merged_table
from mytty.core.errors import ErrorCode
from mytty.core.events import AgentEvent, AgentRunState
from mytty.core.ids import JobId, RunId, SurfaceId, stable_uuid
from mytty.core.jobs.tracker import AgentJob, AgentJobState, is_terminal
from mytty.daemon.admission.controller import Admission
from mytty.daemon.admission.gate import AdmissionGate
from mytty.daemon.admission.starter import WorkerStarter
from mytty.daemon.agents import AgentHub, settle_heap
from mytty.daemon.approvals import callers
from mytty.daemon.approvals.broker import ApprovalBroker
from mytty.daemon.approvals.hook_timeouts import HookTimeouts
from mytty.daemon.clock import DEFAULT_TIMINGS, Clock, SystemClock, Timings
from mytty.daemon.config.load import Settings, load_settings
from mytty.daemon.config.watch import ConfigWatcher
from mytty.daemon.estimation.cursor_approval import CursorApprovalEstimator
from mytty.daemon.estimation.detect import AgentDetector, Detection
from mytty.daemon.estimation.estimator import NativeEstimator
from mytty.daemon.estimation.shell_events import ShellEventWatcher
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.events.ingest import EventIngest
from mytty.daemon.events.spool import EventSpool
from mytty.daemon.explain.evidence import EvidenceService
from mytty.daemon.handler_context import HandlerContext
from mytty.daemon.home import Home
from mytty.daemon.hosts.service import HostsService
from mytty.daemon.integration_service import IntegrationService
from mytty.daemon.jobs.lead_inbox import LeadInbox
from mytty.daemon.jobs.registry import FINISHED_JOBS_IN_MEMORY, JobRegistry
from mytty.daemon.lifecycle import ControllerLock, write_guide
from mytty.daemon.limits.service import ParkedAccounts
from mytty.daemon.notifier import Notifier
from mytty.daemon.panes.identity import PaneRegistry
from mytty.daemon.panes.service import PaneService
from mytty.daemon.panes.sweep import startup_sweep
from mytty.daemon.preflight import AgentPreflight
from mytty.daemon.resources.caps import MemoryCaps, MemoryCapWatch
from mytty.daemon.resources.sampler import ResourceSampler, Target
from mytty.daemon.server.router import ControlRouter
from mytty.daemon.server.sockets import OneShotServer, Peer
from mytty.daemon.store import EventStore, StoreError
from mytty.daemon.tmux_link import TmuxLink
from mytty.daemon.tmux_publish import TmuxPublisher, published_figures
from mytty.daemon.tmux_reinstall import reinstall_soon
from mytty.daemon.transcripts.reader import IngestSoon, TranscriptReader
from mytty.daemon.transcripts.usage import UsageBook
from mytty.daemon.transcripts.watch import TranscriptWatcher
from mytty.daemon.welcome import welcome_command
from mytty.daemon.worktree.service import WorktreeService
from mytty.protocol.control import encode_reply, failure
from mytty.protocol.envelope import encode_event_reply
from mytty.protocol.replies import CostPart, ResourcePart, TokenUsageEntry

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
        self._stop = asyncio.Event()
        self._servers: list[OneShotServer] = []
        #: What the publisher last showed of each pane's figures (see _sampled).
        self._shown_figures: dict[SurfaceId, tuple[int | None, int | None]] = {}
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
        self.integrations = IntegrationService(
            require_port=self.link.require_port, tmux_socket=tmux_socket
        )
        self._build_panes_and_jobs(timings)
        self._build_admission()
        self._build_transcripts_and_estimates(timings)
        self._build_outputs()
        self.hosts = self._build_hosts(timings)
        self.context = HandlerContext(
            tmux_socket=tmux_socket,
            link=self.link,
            panes=self.panes,
            pane_service=self.pane_service,
            hub=self.hub,
            jobs=self.jobs,
            integrations=self.integrations,
            preflight=AgentPreflight(
                panes=self.pane_service, integrations=self.integrations, hub=self.hub
            ),
            worktrees=WorktreeService(home),
            notifier=self.notifier,
            approvals=self.approvals,
            hosts=self.hosts,
            evidence=EvidenceService(
                store=self.store,
                panes=self.panes,
                detector=self.pane_service.detector,
                estimator=self.estimator,
                shell_events=self.shell_events,
                transcripts=self.transcripts,
                codex_router=self.codex_router,
                now=self.clock.now,
            ),
            spawn_settings=lambda: self.settings.spawn,
            now=self.clock.now,
            admission=self.admission_gate,
            clock=self.clock,
            limit_settings=lambda: self.settings.limits,
            limit_facts=self.transcripts.limit_facts,
            launch_window=timings.launch_window,
        )
        self._plug_context()

    def _plug_context(self) -> None:
        """The router over the handlers' context; the usage-limit service (made with that
        context) answers admission's account port: a spawn for an account whose workers are
        parked waits for them (queuedBecause usage-limit; --no-queue: provider-limited)."""
        self.limits = self.context.limits
        self.admission.accounts = ParkedAccounts(self.limits)
        self.router = ControlRouter(self.context)

    def _build_hosts(self, timings: Timings) -> HostsService:
        """The followers of the other hosts; their new attention items go to the notifier."""
        return HostsService(
            self.settings.hosts,
            ctl_bin=self.ctl_bin,
            home=str(self.home.root),
            control_socket=str(self.home.control_socket),
            now=self.clock.now,
            on_new_items=self.notifier.observe_remote,
            backoff_max=timings.host_backoff_max,
        )

    def _build_panes_and_jobs(self, timings: Timings) -> None:
        """The pane set and service, codex routing, the jobs, their notifier and usage book."""
        self.shell_events = ShellEventWatcher(
            self.home.shell_events_dir,
            authorize=self.panes.authorize,
            is_live=lambda surface: surface in self.panes.by_surface,
            clock=self.clock.now,
        )
        self.pane_service = PaneService(
            home=self.home,
            ctl_bin=self.ctl_bin,
            panes=self.panes,
            hub=self.hub,
            require_port=self.link.require_port,
            shell_events=self.shell_events,
            detector=AgentDetector(),
            # A fresh home's first `mytty` session greets the human (once per home).
            first_command=lambda: welcome_command(self.home, self.settings.tmux.popup_key),
            # The estimator's last look: `list` reads no /proc per pane (the one cycle, below).
            last_detection=self._last_detection,
        )
        # `mytty tmux install` follows a replaced tmux server (daemon/tmux_reinstall.py).
        self.pane_service.connected_listeners.append(
            lambda: reinstall_soon(self.home, self.tmux_socket)
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
            # the one cycle (below)
            usage_of=self._job_usage,
            on_attention_item=self._attention_item,
            successor_run=self._successor_run,
            cost_of=self._job_cost,
            resources_of=self._job_resources,
            refresh_resources=self._refresh_resources,
            lead_cost=self._lead_cost,
            screen=self.pane_service.screen,  # what a launching worker's pane shows
            after_reconcile=self._after_reconcile,
            resumes_at=self._resumes_at,
        )
        self.notifier = Notifier(
            self.settings.notify,
            hub=self.hub,
            panes=self.panes,
            label_for_pane=self.jobs.label_for_pane,
            port=lambda: self.link.port,
            now=self.clock.now,
            approval_for=self._approval_for,  # the one cycle (below)
        )
        # Transcripts: turns for the estimator, Claude's Esc, usage and budgets per job.
        self.usage = UsageBook(
            hub=self.hub,
            newest_job=self.jobs.newest_in_pane,
            interrupt=self.pane_service.press_escape,
            store=self.store,
            prices=self._prices,
        )

    def _build_admission(self) -> None:
        """The resource sampler, memory caps, worker starts and admission (the queue)."""
        self.resources = ResourceSampler(targets=self._sample_targets, on_sample=self._sampled)
        self.caps = MemoryCaps(limit_mb=lambda: self.settings.admission.worker_memory_max_mb)
        self.cap_watch = MemoryCapWatch(
            caps=self.caps,
            newest_job=self.jobs.newest_in_pane,
            ended_by_memory_limit=self.jobs.ended_by_memory_limit,
        )
        self.starter = WorkerStarter(
            panes=self.pane_service,
            jobs=self.jobs,
            caps=self.caps,
            limit_mb=lambda: self.settings.admission.worker_memory_max_mb,
            worker_environment=self._worker_environment,
        )
        self.admission = Admission(
            jobs=self.jobs,
            hub=self.hub,
            clock=self.clock,
            settings=lambda: self.settings.admission,
            sampler=self.resources,
            start=self.starter.start,
            give_up=self.starter.give_up,
            stopped=self._resume_stopped,
        )
        self.admission_gate = AdmissionGate(self.admission, self.starter)

    def _build_transcripts_and_estimates(self, timings: Timings) -> None:
        """Transcript reading and watching, native run estimation, the Cursor approval guess."""
        self.transcript_events = IngestSoon(self.hub.ingest, settle=self.jobs.settle_pane)
        self.transcripts = TranscriptReader(
            emit=self._transcript_emit,  # the one cycle (below)
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
        self.cursor_approval = CursorApprovalEstimator(
            self.hub.ingest, self.clock, threshold=timings.cursor_approval
        )

    def _build_outputs(self) -> None:
        """The approvals broker, event intake, what is published to tmux, config.toml's
        watcher."""
        self.approvals = ApprovalBroker(
            hub=self.hub,
            store=self.store,
            jobs=self.jobs,
            panes=self.panes,
            settings=lambda: self.settings.approvals,
            now=self.clock.now,
            hook_timeout=HookTimeouts().timeout,
            require_port=self.link.require_port,
            pane_lock=self.pane_service.pane_lock,
            run_state=self._run_state,
            config_file=self.home.config_file,
            location=self._location,
            classify=self._caller,
        )
        self.ingest = EventIngest(
            hub=self.hub,
            panes=self.panes,
            route_codex=self.codex_router.route,
            # agent spawn --notify-lead, and --budget-usd's warnings
            lead_notices=LeadInbox(self.jobs, self.usage.budget_news).take,
            approvals=self.approvals,
        )
        #: Hook events that found no controller (a restart): ingested before the sweep.
        self.spool = EventSpool(self.home.event_spool_dir, self.ingest.handle)
        self.publisher = TmuxPublisher(
            hub=self.hub,
            panes=self.panes,
            jobs_by_pane=self.jobs.newest_by_pane,
            port=lambda: self.link.port,
            tokens_of=_tokens_of(self.usage),
            cost_of=self.usage.cost_entry,
            resources_of=self._job_resources,
        )
        self.config_watch = ConfigWatcher(
            self.home.root, lambda: self.settings, self.apply_settings
        )

    # ----------------------------------------------------------------------------------------
    # the one cycle
    # ----------------------------------------------------------------------------------------
    # The pane service and the job registry are built first, since the usage book, the
    # notifier, the transcript reader and the estimator read panes and jobs. Yet the registry
    # asks those later parts back (a job's usage, who to tell of its attention items, the turn
    # run an estimated epoch continues in), the pane service describes panes from the
    # estimator's last look, and the transcript reader reports to the estimator that reads
    # its turns. Each such question is one method here, handed to the earlier part as a
    # constructor argument; none is asked before __init__ has built every part it names
    # (nothing runs before run()).
    def _job_usage(self, job: AgentJob) -> TokenUsageEntry | None:
        return self.usage.entry(job)

    def _attention_item(self, item: AttentionItem) -> None:
        self.notifier.observe_item(item)

    def _job_cost(self, job: AgentJob) -> CostPart:
        return self.usage.cost_entry(job)

    def _job_resources(self, job: AgentJob) -> ResourcePart:
        return self.resources.part(job.job_id)

    async def _refresh_resources(self) -> None:
        await self.resources.refresh()

    def _lead_cost(
        self, lead: SurfaceId, workers: list[AgentJob]
    ) -> tuple[float | None, float | None, float | None]:
        return self.usage.lead_cost(lead, workers)

    def _successor_run(self, run_id: RunId) -> RunId | None:
        return self.estimator.machine.successor(run_id)

    def _after_reconcile(self, before: AgentJob, after: AgentJob) -> AgentJob:
        return self.limits.after_reconcile(before, after)

    def _resumes_at(self, job: AgentJob) -> float | None:
        return self.limits.resumes_at(job)

    def _last_detection(self, surface_id: SurfaceId) -> Detection | None:
        return self.estimator.detection(surface_id)

    def _approval_for(self, run_id: RunId) -> str | None:
        return self.approvals.open_id_for_run(run_id)

    def _run_state(self, run_id: str) -> AgentRunState | None:
        run = self.hub.book.get(RunId(run_id))
        return run.state if run is not None else None

    def _location(self, surface_id: SurfaceId) -> str | None:
        """The pane as tmux names it (``session:window.pane``), None once it is gone."""
        pane = self.panes.get(surface_id)
        row = pane.row if pane is not None else None
        return None if row is None else f"{row.session_name}:{row.window_index}.{row.pane_index}"

    def _caller(self, peer_pid: int) -> Caller:
        def job_in_pane(surface: SurfaceId) -> JobId | None:
            job = self.jobs.newest_in_pane(surface)
            return job.job_id if job is not None and not is_terminal(job.state) else None

        def agent_in_front(surface: SurfaceId) -> bool:
            pane = self.panes.get(surface)
            return pane is not None and self.pane_service.foreground_agent(pane)[0] is not None

        return callers.classify(
            peer_pid,
            self.panes.pid_map(),
            job_in_pane=job_in_pane,
            agent_in_front=agent_in_front,
        )

    def _prices(self) -> dict[str, ModelPrice]:
        return merged_table(self.settings.prices)

    def _worker_environment(self) -> dict[str, str]:
        return self.context.worker_environment()  # what a spawned worker's pane gets

    def _sample_targets(self) -> dict[str, Target]:
        """Every pane's newest job with its pane's process (what the sampler reads)."""
        targets: dict[str, Target] = {}
        for surface, job in self.jobs.newest_by_pane().items():
            pane = self.panes.by_surface.get(surface)
            if pane is not None and pane.pid > 0:
                settled = job.state not in (AgentJobState.QUEUED, AgentJobState.LAUNCHING)
                targets[job.job_id] = Target(pane.pid, job.provider, settled)
        return targets

    def _sampled(self) -> None:
        """A new sample: wake the panes whose published figures changed (@mytty_rss in whole
        MiB, @mytty_cpu in whole percent), so a steady worker costs tmux nothing."""
        for surface, job in self.jobs.newest_by_pane().items():
            shown = published_figures(self.resources.part(job.job_id))
            if self._shown_figures.get(surface) != shown:
                self._shown_figures[surface] = shown
                self.hub.bump(surface)

    def _resume_stopped(self, job: AgentJob, message: str) -> None:
        item = self.hub.attention.add_resume_stopped(
            stable_uuid("attention", "resume-stopped", job.job_id, str(self.clock.now())),
            JobId(job.job_id),
            job.surface_id,
            job.provider.agent_provider,
            message,
            self.clock.now(),
        )
        if item is not None:
            self.hub.bump()
            self.notifier.observe_item(item)

    def _transcript_emit(self, event: AgentEvent) -> None:
        # The estimator sees the reader's events too (a Codex API error fails the turn it asks about).
        self.estimator.source_emitted(event)
        self.transcript_events(event)

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
        self.admission.restore()  # tickets continue after the stored queue's
        self.usage.load(self.store.load_usage())
        self.approvals.load(self.store.load_approvers(), self.store.load_open_approvals())
        settle_heap()  # everything alive now lives as long as the process
        self.store.start_writer(loop)
        self.hub.add_observer(self.cursor_approval.observe)
        self.hub.add_observer(self.approvals.observe)
        self.hub.add_observer(self.transcript_watch.observe_event)
        self.hub.add_observer(self.limits.observe)
        self.transcript_watch.start(loop)
        try:
            await self.link.connect(self.pane_service, first=True)
            self._wire_estimator()
            await self.estimator.restore()  # before the sweep: runs whose agent still runs stay
            # What hooks reported while no controller ran, before the sweep judges the runs.
            await self.spool.drain()
            await startup_sweep(
                self.hub, self.panes, self.clock.now(), agent_alive=self.estimator.agent_alive
            )
            await self.jobs.sweep()  # after the panes are known: a job whose pane went is lost
            # Items of panes that went while no controller watched (and the sweep's own).
            await self.hub.retire_items(lambda surface: surface not in self.panes.by_surface)
            self.approvals.settle_restart()  # a request whose run no longer waits expired
            self.limits.start()  # parked jobs planned again, their timers armed
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
            self._servers = self._socket_servers()
            for server in self._servers:
                await server.start()
            self.spool.start(loop)  # from now on, a late spooled event is taken as it lands
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
                tg.create_task(self.admission.run(), name="admission")
                tg.create_task(self.resources.run(), name="resources")
                tg.create_task(self.hosts.run(), name="hosts")
                tg.create_task(self._wait_for_stop(), name="stop")
        except* _Stop:
            pass
        finally:
            await self._shutdown()

    def _socket_servers(self) -> list[OneShotServer]:
        """The control socket and the event socket, not yet listening."""
        return [
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

    def _wire_estimator(self) -> None:
        self.estimator.attach()
        self.pane_service.pane_gone_listeners.append(self.estimator.pane_gone)
        self.pane_service.pane_gone_listeners.append(self.transcripts.forget)
        self.pane_service.pane_gone_listeners.append(self.approvals.pane_gone)
        self.shell_events.add_listener(self.estimator.on_shell_event)
        if self.jobs.launch_watch is not None:  # a worker that exits before its first run
            self.shell_events.add_listener(self.jobs.launch_watch.on_shell_event)
            self.pane_service.pane_gone_listeners.append(self.jobs.launch_watch.forget)
        self.shell_events.add_listener(self.cap_watch.on_shell_event)

    def apply_settings(self, settings: Settings) -> None:
        """config.toml changed: notifications follow it from now on, spawns from the next one,
        parked jobs are planned again, and hosts added to or removed from ``[hosts]`` are
        followed or left at once.

        ``[tmux]`` and ``[resume]`` are read by the commands that use them (``mytty tmux
        install``, ``mytty up``/``start``/``resume``), so they need nothing here.
        """
        self.settings = settings
        self.notifier.update(settings.notify)
        self.admission.settings_changed()  # the queue is judged under the new limits
        self.limits.settings_changed()  # [limits]: parked jobs planned again
        self.hosts.update(settings.hosts)

    def request_stop(self) -> None:
        self._stop.set()

    async def _wait_for_stop(self) -> None:
        await self._stop.wait()
        raise _Stop

    async def _shutdown(self) -> None:
        for server in self._servers:
            await server.close()
        await self.spool.close()
        self.cursor_approval.cancel_all()
        self.config_watch.close()
        await self.notifier.close()
        await self.limits.close()
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


def _tokens_of(usage: UsageBook) -> Callable[[AgentJob], int | None]:
    """A job's total tokens so far, as its transcript counts them (None: none known)."""

    def tokens(job: AgentJob) -> int | None:
        entry = usage.entry(job)
        return entry["totalTokens"] if entry is not None else None

    return tokens


class _Stop(Exception):
    pass
