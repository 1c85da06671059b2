"""The seam between control handlers and the controller: small Protocols, one per concern.

A handler's ``ctx`` parameter names only the ports it uses (usually an intersection declared
next to the handler, e.g. ``class SendContext(PaneDirectory, TmuxAccess, Protocol)``), so a
reader sees at a glance what a command can touch and a test can hand it small fakes
(``tests/control``). :class:`Context` is all of them together: what the daemon's
``HandlerContext`` provides, checked by mypy where the router receives it.

Everything is typed against core and :mod:`mytty.tmux.port`; nothing here is daemon code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

from mytty.core.errors import ErrorCode

if TYPE_CHECKING:  # types only: importing the ports loads none of these
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
    from contextlib import AbstractAsyncContextManager

    from mytty.core.admission.rules import Waiting
    from mytty.core.approvals.access import Caller
    from mytty.core.approvals.model import ApprovalRequest, Decision
    from mytty.core.approvals.rules import Rule
    from mytty.core.attention.items import AttentionBook
    from mytty.core.events import AgentProvider, WorkerProvider
    from mytty.core.explain.inputs import EventWindow, Observations
    from mytty.core.hosts.state import HostState
    from mytty.core.ids import JobId, RunId, SurfaceId, TmuxPaneId
    from mytty.core.jobs.launch_record import JobLaunch
    from mytty.core.jobs.tracker import AgentJob, QueuedAs, SpawnTags
    from mytty.core.runs.book import RunBook
    from mytty.core.runs.ledger import EventLedger
    from mytty.core.runs.notes import StatusNotes
    from mytty.protocol.replies import (
        ApprovalEntry,
        IntegrationStatusesReply,
        JobSnapshot,
        LimitsReply,
        MemoryCapEntry,
        NotifyTestReply,
        PaneEntry,
        ResumeReply,
        WorktreeRemovalReply,
    )
    from mytty.tmux.port import PaneRow, TmuxPort

T = TypeVar("T")

# -- panes --------------------------------------------------------------------------------------


class PaneView(Protocol):
    """One pane as handlers see it (``daemon.panes.Pane`` is the real one)."""

    @property
    def surface_id(self) -> SurfaceId: ...
    @property
    def tmux_id(self) -> TmuxPaneId:
        """tmux's ``%N``: only ever handed back to the tmux port."""
        ...

    @property
    def pid(self) -> int: ...
    @property
    def row(self) -> PaneRow | None:
        """The pane's last ``list-panes`` row; None until tmux has listed it."""
        ...


class PaneLookup(Protocol):
    """The live pane set, by surface id."""

    @property
    def by_surface(self) -> Mapping[SurfaceId, PaneView]: ...
    def get(self, surface_id: str | None) -> PaneView | None:
        """The pane whose surface id ``surface_id`` spells (any case), or None."""
        ...

    def panes(self) -> Sequence[PaneView]: ...


class PaneDirectory(Protocol):
    """Finding panes. ``require_pane`` is ``tmux-unavailable`` first, then ``code``."""

    @property
    def panes(self) -> PaneLookup: ...
    def require_pane(
        self, pane_id: str | None, code: ErrorCode = ErrorCode.PANE_NOT_FOUND
    ) -> PaneView: ...
    async def refresh_panes(self) -> Sequence[PaneRow]:
        """List tmux's panes again (tmux announces no ``cd`` and no new foreground process)."""
        ...


class PaneFacts(Protocol):
    """What the controller knows about a pane beyond tmux's row."""

    def pane_info(self, pane: PaneView) -> PaneEntry: ...
    def pane_environment(self, surface_id: SurfaceId) -> dict[str, str]: ...
    def caller_surface(self, peer_pid: int) -> SurfaceId | None:
        """The pane whose shell is an ancestor of ``peer_pid``, if any."""
        ...

    def pane_directory(self, pane: PaneView) -> str | None:
        """The pane's working directory: tmux's, else its process's (None when unknown)."""
        ...


class PaneFactory(Protocol):
    """Making and closing panes and sessions."""

    @property
    def tmux_socket(self) -> str: ...
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
    ) -> PaneView: ...
    async def close_pane(self, pane: PaneView) -> None: ...
    async def preferred_session(self) -> str: ...
    async def ensure_user_session(self) -> str: ...


class TmuxAccess(Protocol):
    """The tmux port (``tmux-unavailable`` while it is down) and per-pane input order."""

    def require_port(self) -> TmuxPort: ...
    def pane_lock(self, surface_id: SurfaceId) -> AbstractAsyncContextManager[object]: ...


# -- agent state --------------------------------------------------------------------------------


class AgentState(Protocol):
    """The pure books behind the controller's events, the change signal and its waiters."""

    @property
    def book(self) -> RunBook: ...
    @property
    def attention(self) -> AttentionBook: ...
    @property
    def ledger(self) -> EventLedger: ...
    @property
    def notes(self) -> StatusNotes: ...
    async def acknowledge(self, item_ids: Collection[str], now: float) -> None:
        """Acknowledge attention items, stored before applied (``internal-error`` if not)."""
        ...

    def bump(self) -> None:
        """Wake every waiter (something they may be waiting for changed)."""
        ...

    def now(self) -> float:
        """The controller's clock (wall-clock seconds), injected at its composition root."""
        ...

    async def wait_until(
        self,
        probe: Callable[[], T | None],
        timeout: float,
        *,
        surface_id: str | None = None,
        after_sequence: int | None = None,
        surface_ids: Collection[str] | None = None,
    ) -> tuple[T | None, bool]:
        """Re-run ``probe`` on every change until it returns non-None: (value, timed_out).

        ``surface_id``: only that pane's changes can alter the answer (None: any change);
        ``surface_ids``: only those panes' changes can.
        ``after_sequence``: only a ledger tip past this cursor can change the answer.
        """
        ...


class RunWaiter(Protocol):
    """The agent state, for commands that read runs or wait on them."""

    @property
    def hub(self) -> AgentState: ...


class JobBook(Protocol):
    def start(
        self,
        surface_id: SurfaceId,
        provider: WorkerProvider,
        label: str | None,
        baseline: Iterable[RunId],
    ) -> AgentJob:
        """A new job for the worker just launched in that pane; its launch window opens now."""
        ...

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
        """:meth:`start`, committed to the store before it returns (``spawn-failed`` if not);
        ``queued``: admission holds the worker back (the job starts ``queued``)."""
        ...

    def key_lock(self, lead: SurfaceId | None, key: str) -> AbstractAsyncContextManager[None]:
        """Held by an ``agent spawn --key`` from its look-up until its job is stored."""
        ...

    def keyed(self, lead: SurfaceId | None, key: str) -> AgentJob | None:
        """The newest job of ``lead`` with ``key`` that still holds it (reconciled now)."""
        ...

    def mark_closed(self, job_id: str) -> None:
        """The job's pane was closed on purpose (``mytty resume`` then skips it)."""
        ...

    def current(self, job_id: str) -> AgentJob:
        """The job reconciled against the runs now (``job-not-found`` when unknown)."""
        ...

    def re_arm(self, job_id: str) -> AgentJob: ...
    def ids(self) -> list[str]:
        """Every job in memory, oldest first."""
        ...

    def snapshot(self, job: AgentJob) -> JobSnapshot: ...
    def label_for_pane(self, surface_id: SurfaceId) -> str | None: ...
    def newest_in_pane(self, surface_id: SurfaceId) -> AgentJob | None:
        """The newest job started in that pane, as last reconciled (None: none in memory)."""
        ...

    async def refresh_resources(self) -> None:
        """Sample the jobs' processes now unless that was done within the last second (the
        snapshots that follow carry ``rssBytes``/``cpuPercent``)."""
        ...

    def lead_cost(self, lead: SurfaceId) -> tuple[float | None, float | None, float | None]:
        """The lead's own cost, its workers', and the two added up (dollars; None: unknown)."""
        ...


class JobStore(Protocol):
    @property
    def jobs(self) -> JobBook: ...


# -- admission ----------------------------------------------------------------------------------


class AdmissionSlot(Protocol):
    """A spawn's claim on admission: ``waiting`` None means the worker may start now."""

    @property
    def ticket(self) -> int: ...
    @property
    def waiting(self) -> Waiting | None: ...


class AdmissionGate(Protocol):
    def claim(
        self, provider: WorkerProvider, lead: SurfaceId | None, *, paced: bool = False
    ) -> AdmissionSlot:
        """Judge a spawn now; the slot is held until :meth:`release` (call it in finally).
        ``paced``: a worker ``mytty resume`` restarts (its start is paced)."""
        ...

    def resumption_started(self) -> None:
        """A new ``mytty resume``: a pacing stopped by failed starts may go again."""
        ...

    def release(self, slot: AdmissionSlot, job: AgentJob | None = None) -> None: ...
    def position_hint(self, slot: AdmissionSlot) -> int:
        """Where a spawn that must wait lands in the queue (1: next)."""
        ...

    async def worker_launch(
        self, job_id: str, resumed: int, argv: Sequence[str]
    ) -> tuple[str, tuple[int, str] | None]:
        """The worker's launch line (under the memory cap, when one is enforced) and the cap."""
        ...

    async def memory_cap_entry(self) -> MemoryCapEntry | None:
        """What the spawn reply says of ``[admission] worker_memory_max_mb`` (None: unset)."""
        ...


class Admitting(Protocol):
    @property
    def admission(self) -> AdmissionGate: ...


# -- integrations and agent checks ------------------------------------------------------------


class Integrations(Protocol):
    async def status(self, provider: AgentProvider) -> str: ...
    async def wire(self) -> IntegrationStatusesReply: ...
    async def enable_with_consent(
        self, providers: list[AgentProvider], *, repair: bool
    ) -> IntegrationStatusesReply: ...
    async def repair_with_consent(
        self, provider: AgentProvider | None
    ) -> IntegrationStatusesReply: ...


class IntegrationStatus(Protocol):
    @property
    def integrations(self) -> Integrations: ...


class AgentChecks(Protocol):
    """Checks and choices of the agent commands that need /proc, git or integration files."""

    async def attention_preflight(self, pane: PaneView) -> None: ...
    async def job_attention_preflight(self, job: AgentJob) -> None: ...
    async def spawn_preflight(self, provider: WorkerProvider) -> None: ...
    async def binary_preflight(
        self, provider: WorkerProvider, anchor: PaneView | None, caller_pid: int
    ) -> str | None:
        """Fail when the worker cannot find its binary; the directory to put first on the
        worker's PATH when only the caller's PATH has it (else None)."""
        ...

    async def resolve_worktree(self, base_dir: str, branch: str) -> str: ...
    async def worktree_used(self, path: str, job_id: str) -> None:
        """Remember that a job runs in ``path`` (a no-op unless mytty created that worktree)."""
        ...

    def worker_environment(self) -> dict[str, str]:
        """What a worker's pane gets besides the pane environment (core.kill_guard)."""
        ...

    async def access_mode_flags(
        self, worker: WorkerProvider, access: str | None, anchor: PaneView | None
    ) -> list[str]: ...


class Worktrees(Protocol):
    """The worktrees mytty created, for ``agent close --remove-worktree``."""

    async def remove_job_worktree(self, job_id: str) -> WorktreeRemovalReply | None:
        """Remove the job's worktree if it is safe; None when mytty created none for the job."""
        ...


class Notifications(Protocol):
    """The notification router, for ``notifyTest``."""

    async def notify_test(self, surface_id: SurfaceId | None) -> NotifyTestReply:
        """Send one test notification through every enabled channel (``surface_id``: the
        caller's pane, whose bell rings), reporting each channel."""
        ...


class HostsView(Protocol):
    """The other hosts this controller follows (mytty.daemon.hosts)."""

    def followed_hosts(self) -> Sequence[HostState]:
        """Each configured host as last seen, in config order."""
        ...

    async def refresh_hosts(self, timeout: float) -> None:
        """Ask every current host again now (after acknowledging one of its items), returning
        once each answered or ``timeout`` seconds passed."""
        ...


class JobResumer(Protocol):
    """``mytty resume`` (mytty.daemon.jobs.resume)."""

    async def resume_jobs(self, job_ids: list[str] | None, *, dry_run: bool) -> ResumeReply:
        """Restart the lost workers (``job_ids``: only those) on their own conversations."""
        ...


class ApprovalDesk(Protocol):
    """The approvals broker (mytty.daemon.approvals.broker), for the ``approval`` commands."""

    def caller(self, peer_pid: int) -> Caller:
        """Who is asking: a person, or an agent and its pane (from the process ancestry)."""
        ...

    def visible(self, caller: Caller) -> list[ApprovalRequest]:
        """The open requests ``caller`` may see, oldest first."""
        ...

    def find(self, text: str) -> ApprovalRequest:
        """The request an id or unique prefix names (``approval-not-found``)."""
        ...

    def propose(self, text: str, caller: Caller) -> Rule:
        """The narrowest rule that would allow it (``approval-rule-unavailable``)."""
        ...

    async def answer(
        self,
        text: str,
        decision: Decision,
        *,
        caller: Caller,
        channel: str,
        message: str | None = None,
        session: str | None = None,
        always: bool = False,
    ) -> tuple[ApprovalRequest, Rule | None]:
        """Decide it (the first decision wins); with ``always``, write the rule first."""
        ...

    async def log(
        self, seconds: float | None, caller: Caller, limit: int = ...
    ) -> list[ApprovalRequest]:
        """Every request of the last ``seconds`` (None: all) ``caller`` may see, newest first."""
        ...

    def entry(self, request: ApprovalRequest) -> ApprovalEntry: ...
    def rule_table(self, rule: Rule) -> dict[str, str]: ...
    @property
    def config_file(self) -> str: ...
    async def set_approver(self, job_id: JobId, approver: str) -> None:
        """``agent spawn --approver`` for a new job (stored; ``spawn-failed`` if not)."""
        ...


class ApprovalAccess(Protocol):
    @property
    def approvals(self) -> ApprovalDesk: ...


class UsageLimits(Protocol):
    """Parked workers (mytty.daemon.limits): ``limits list|resume|hold``, held sends."""

    def limits_report(self) -> LimitsReply:
        """Every parked job and every account with one."""
        ...

    def resume_parked(self, job_ids: list[str] | None) -> LimitsReply:
        """The named parked jobs (None: every one) go on now, one account at a time."""
        ...

    def hold_parked(self, job_ids: list[str]) -> LimitsReply:
        """The named parked jobs stay parked until ``resume_parked``."""
        ...

    def hold_send(self, job_id: str, text: str, press_enter: bool) -> bool:
        """Hold an ``agent send`` for a parked job (True), else leave it to the caller."""
        ...


class Evidence(Protocol):
    """What ``explain`` reads beyond the books (mytty.daemon.explain.evidence)."""

    async def recent_events(self, run_ids: Sequence[RunId], per_run: int) -> EventWindow:
        """The newest ``per_run`` stored events of each run, oldest first (read in a thread,
        one indexed query per run)."""
        ...

    def observations(self, surface_id: SurfaceId, since: float | None) -> Observations:
        """What the controller sees of the pane now (its foreground, native estimation's
        epoch, the shell's last report, the transcript's turn, Codex routing)."""
        ...


class EvidenceAccess(Protocol):
    @property
    def evidence(self) -> Evidence: ...


class Context(
    ApprovalAccess,
    PaneDirectory,
    PaneFacts,
    PaneFactory,
    TmuxAccess,
    RunWaiter,
    JobStore,
    IntegrationStatus,
    AgentChecks,
    Worktrees,
    Notifications,
    JobResumer,
    HostsView,
    Admitting,
    UsageLimits,
    EvidenceAccess,
    Protocol,
):
    """Every port: the controller as the router hands it to any handler."""
