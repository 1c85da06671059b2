"""The agent job tracker: which run a spawned worker's job follows, and what state it reports.

A job points at *one* run of its worker, never at "whatever the pane is doing". At spawn time the
controller records the run ids already present for (new pane, provider) as the ``baseline``; the
job then binds to the first run outside that baseline that has really started, and it never
switches to another run on its own. So two jobs spawned back to back can't see each other's runs,
and ``agent wait --until completed`` can't be satisfied by a run older than the job.

Reconciliation is lazy and pure: the controller calls :func:`reconcile` with the pane's runs of
the job's provider whenever an ``agent`` command touches the job (every ``agent wait`` poll,
``result``, ``send``, ``focus``, ``close``). Nothing runs in the background.

**Queued jobs** (a mytty addition: ``[admission]`` in config.toml). A spawn that admission
can't start now is accepted as a ``queued`` job: its pane exists (it shows why it waits) but
its agent is not started, so there is nothing to bind to and no launch window yet. The
controller starts it later (:func:`admitted`: ``launching``, a fresh baseline and window),
in ``queue_ticket`` order (mytty.core.admission). A queued job whose pane is gone is ``lost``
like any unfinished job (``agent close`` cancels a queued job that way).

Rules of :func:`reconcile`, in order:

1. A job in a terminal state stays as it is. Terminal states are final until
   :func:`prepare_for_follow_up` re-arms the job; ``launch-failed`` and ``lost`` can't be re-armed.
2. The pane is gone → ``lost``.
   A ``queued`` job whose pane exists stays ``queued``: it never binds before it starts.
3. Bound → take the bound run's state (see below); if the run is missing, keep the last state.
4. Unbound → bind to the eligible run that started first: same pane and provider, not in the
   baseline, state neither ``unknown`` nor ``idle`` (an ``idle`` run is the SessionStart marker,
   which must not capture the job). Ordering: earliest ``started_at`` (missing loses), then
   earliest ``updated_at`` (missing loses), then the smallest run id.
5. Still unbound, and the worker's shell reported a command finished since the spawn (the
   agent exited before its first run: offline, a bad flag) → ``launch-failed`` at once, with
   the agent's own last words from the pane as the message (:attr:`LaunchClues.exited`).
6. Still unbound, and the pane shows the agent's sign-in screen (:attr:`LaunchClues.sign_in`):
   a provider that keeps the task until signed in (Codex) → ``waiting-input``, "not signed
   in" (a human must act; it stays so until its first run binds, or its agent leaves the
   pane's foreground or its pane goes, whatever the deadline); one that answered the
   task with "please log in" (Claude Code) → ``launch-failed`` with that line. A job bound to
   a ``running`` run whose pane shows a task-keeping sign-in screen (a Codex worker without
   hooks, which native estimation shows running) reads ``waiting-input`` the same way.
7. Still unbound and ``launching`` at the deadline (30 s after spawn or re-arm) →
   ``launch-failed``, with a message naming the likely cause from what the controller saw in
   the pane (:class:`LaunchClues`): the agent running but its hooks silent, codex events that
   could not be placed, or no agent at all.

Run state → job state: running / waiting-input / waiting-approval / succeeded / failed /
disconnected map to the job state of the same name, and the job's ``message`` is the bound run's
current message (None once the run moved on from the event that had one). A job never binds to an ``unknown`` run,
and the reducer never moves a run back to ``unknown``; should a bound run read ``unknown``
anyway, the job keeps its state, so a bound job never reads ``launching``.

**A bound run that goes ``idle``** (a Claude ESC interrupt, a prompt superseded by a newer one,
or a native turn hand-off) never finishes by itself, so reporting ``launching`` again — what the
original did — leaves ``agent wait --until completed`` hanging until its timeout. Here it ends the
job instead:

* if the job had already seen the run succeed, it stays ``succeeded`` (rule 1);
* otherwise the job becomes ``disconnected`` with :data:`INTERRUPTED_MESSAGE` and
  ``bound_completed_by_idle=True``. ``disconnected`` is the state that already means "this run
  stopped without a result", it is terminal (so waits end), and it can be re-armed by a follow-up
  ``agent send`` like any finished job. The job still does not rebind: whatever the worker does
  next is a new run, reached through a follow-up.

**A bound run that stops at a usage limit** (a mytty addition) parks the job: ``parked``, with a
:class:`~mytty.core.limits.park.Park` naming that run, and every run the pane has so far joins
the baseline (the parked run is left out of any later binding). A parked job is not finished (``agent wait --until completed`` waits on) and
ignores what later happens to the parked run; it ends its park by binding to its
conversation's *next* run, whoever started it (mytty's continuation, the agent's own, a human
typing into the pane): the one documented case of a job rebinding. ``limit_streak`` counts the
parks in a row (a run of the job that ended otherwise sets it back to 0), which is how a job that
parks again right after going on backs off.

**A follow-up sent while the job's run is running** (a mytty difference from the original, where
such a send changes nothing) is followed too (not one sent while it waits for input or an
approval: that text answers within the turn). The text reaches an agent that is busy, or one that
has just finished while mytty had not yet heard of it; either way the agent takes it as its next
turn, so :func:`prepare_for_follow_up` notes the time (``follow_up_at``). When the bound run then
ends (``succeeded``, ``failed``, or ``disconnected``: interrupted or superseded), the job does not end with it: it goes ``launching`` for the
next run outside the baseline (the one the follow-up starts), with a
:data:`FOLLOW_THROUGH_WINDOW_SECONDS` window, and keeps the ended run's outcome in
``follow_through``. An agent that took the text into the same turn (Claude Code can) starts no
new run: at the window's end the job takes back that outcome instead of ``launch-failed``. So
``agent wait --until completed`` wakes when the worker has done everything it was asked, and
``agent result`` reads the last of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from mytty.core import vocab
from mytty.core.events import AgentRunState, WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId, stable_uuid
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.launch_screen import SIGN_IN_KEEPS_TASK
from mytty.core.limits.park import HeldSend, Park, held_by_streak
from mytty.core.runs.run import AgentRun

#: Seconds a job waits for its run to appear after a spawn or a follow-up re-arm.
LAUNCH_WINDOW_SECONDS = 30.0

#: Seconds a job whose run ended with a follow-up pending waits for the run the follow-up
#: starts (an agent starts it right after its turn ends; see the module docstring).
FOLLOW_THROUGH_WINDOW_SECONDS = 10.0

#: The message of a queued job whose pane went (``agent close``) before its worker started.
CANCELLED_MESSAGE = "Cancelled while queued: its pane was closed before the worker started."

#: The message of a job whose bound run went idle before finishing.
INTERRUPTED_MESSAGE = "The run was interrupted or superseded before it finished."


class AgentJobState(StrEnum):
    QUEUED = vocab.QUEUED
    LAUNCHING = vocab.LAUNCHING
    RUNNING = vocab.RUNNING
    WAITING_INPUT = vocab.WAITING_INPUT
    WAITING_APPROVAL = vocab.WAITING_APPROVAL
    #: Stopped at a usage limit; goes on after the reset (a mytty addition).
    PARKED = vocab.PARKED
    SUCCEEDED = vocab.SUCCEEDED
    FAILED = vocab.FAILED
    DISCONNECTED = vocab.DISCONNECTED
    LAUNCH_FAILED = vocab.LAUNCH_FAILED
    LOST = vocab.LOST


_J = AgentJobState
_R = AgentRunState

TERMINAL_JOB_STATES: frozenset[AgentJobState] = frozenset(
    {_J.SUCCEEDED, _J.FAILED, _J.DISCONNECTED, _J.LAUNCH_FAILED, _J.LOST}
)
ATTENTION_JOB_STATES: frozenset[AgentJobState] = frozenset({_J.WAITING_INPUT, _J.WAITING_APPROVAL})
#: States a follow-up ``agent send`` re-arms from (the run finished; the pane may start another).
REARMABLE_JOB_STATES: frozenset[AgentJobState] = frozenset(
    {_J.SUCCEEDED, _J.FAILED, _J.DISCONNECTED}
)

_RUN_TO_JOB: dict[AgentRunState, AgentJobState] = {
    _R.RUNNING: _J.RUNNING,
    _R.WAITING_INPUT: _J.WAITING_INPUT,
    _R.WAITING_APPROVAL: _J.WAITING_APPROVAL,
    _R.SUCCEEDED: _J.SUCCEEDED,
    _R.FAILED: _J.FAILED,
    _R.DISCONNECTED: _J.DISCONNECTED,
}

_UNBINDABLE_RUN_STATES = frozenset({_R.UNKNOWN, _R.IDLE})

#: The job state of a bound run that is working: a follow-up sent now is its next turn. Not
#: waiting-input or waiting-approval: text sent then answers the question within the turn.
_ACTIVE_JOB_STATES = frozenset({_J.RUNNING})
#: Outcomes a pending follow-up carries the job past (to the run it starts).
_FOLLOWED_THROUGH = frozenset({_J.SUCCEEDED, _J.FAILED, _J.DISCONNECTED})


@dataclass(frozen=True, slots=True)
class FollowThrough:
    """The outcome of the run a job left for the run its pending follow-up starts."""

    run_id: RunId
    state: AgentJobState
    message: str | None


if TYPE_CHECKING:
    from mytty.core.vocab import JobWaitCondition as WaitCondition


@dataclass(frozen=True, slots=True)
class AgentJob:
    """One spawned worker job. ``run_id`` is None until the job binds to a run."""

    job_id: JobId
    surface_id: SurfaceId
    provider: WorkerProvider
    label: str | None
    state: AgentJobState
    run_id: RunId | None
    session_id: str | None
    message: str | None
    baseline: frozenset[RunId]
    deadline: float
    #: True when the job ended because its bound run went idle (see the module docstring).
    bound_completed_by_idle: bool = False
    #: Subagents the bound run started that are still live (SubagentStart without its
    #: SubagentStop or task-notification yet); a live one keeps the run, so the job, running.
    live_subagents: int = 0
    #: ``agent spawn --key``: the caller's idempotency key (scoped to ``lead``), or None.
    key: str | None = None
    #: A digest of the spawn's task and provider, so a second spawn under the same key can
    #: tell "the same request again" from "a different task" (see :func:`spawn_digest`).
    spawn_digest: str | None = None
    #: The lead's pane: the pane of the process that ran ``agent spawn`` (else its anchor).
    lead: SurfaceId | None = None
    #: ``agent spawn --notify-lead``: push this job's outcome to the lead's next turn.
    notify_lead: bool = False
    #: The :func:`notice_token` last delivered to the lead (None: nothing delivered yet).
    notified: str | None = None
    #: How the worker was started (None: a job from before launches were recorded); what
    #: ``mytty resume`` needs (core.job_launch).
    launch: JobLaunch | None = None
    #: ``agent spawn --budget-tokens``: the tokens the worker may spend (None: no limit).
    budget_tokens: int | None = None
    #: ``agent spawn --budget-usd``: the dollars it may spend, as a decimal text such as
    #: ``"2.5"`` (exact; None: no limit).
    budget_usd: str | None = None
    #: While ``queued``: why it waits (a mytty.core.admission.QueueReason value).
    queued_because: str | None = None
    #: While ``queued``: its place; queued jobs start in ticket order.
    queue_ticket: int | None = None
    #: A queued job ``mytty resume`` made: such starts are paced (``[admission] start_burst``).
    paced: bool = False
    #: Why a finished job ended beyond its state: ``memory-limit`` (killed by its memory cap).
    end_reason: str | None = None
    #: ``[admission] worker_memory_max_mb`` as enforced on its worker (None: no cap enforced),
    #: and the cap's name (a systemd scope unit or a cgroup directory).
    memory_cap_mb: int | None = None
    memory_cap: str | None = None
    #: While ``parked``: why and until when (None otherwise).
    park: Park | None = None
    #: ``agent send`` text that arrived while parked, delivered in order once it went on.
    held_sends: tuple[HeldSend, ...] = ()
    #: Usage-limit parks in a row (0 once a run of the job ended otherwise).
    limit_streak: int = 0
    #: When an ``agent send`` reached the job's bound run while it was active (see the
    #: module docstring); None: no follow-up is pending.
    follow_up_at: float | None = None
    #: While the job waits for the run its follow-up starts: the outcome it left.
    follow_through: FollowThrough | None = None


#: ``end_reason`` of a worker killed by ``[admission] worker_memory_max_mb``.
MEMORY_LIMIT_REASON = "memory-limit"


def is_terminal(state: AgentJobState) -> bool:
    """True for succeeded, failed, disconnected, launch-failed and lost."""
    return state in TERMINAL_JOB_STATES


@dataclass(frozen=True, slots=True)
class SpawnTags:
    """What a spawn tells its job beyond the pane: key, request digest, lead, notify flag."""

    key: str | None = None
    spawn_digest: str | None = None
    lead: SurfaceId | None = None
    notify_lead: bool = False
    budget_tokens: int | None = None
    budget_usd: str | None = None


@dataclass(frozen=True, slots=True)
class QueuedAs:
    """How a job admission holds back is queued: why, with what message, and its place."""

    reason: str
    message: str
    ticket: int
    #: Queued by ``mytty resume`` (its start is paced).
    paced: bool = False


def new_job(
    job_id: JobId,
    surface_id: SurfaceId,
    provider: WorkerProvider,
    label: str | None,
    baseline: Iterable[RunId],
    now: float,
    window: float = LAUNCH_WINDOW_SECONDS,
    tags: SpawnTags | None = None,
) -> AgentJob:
    """A freshly spawned job: launching, unbound, failing at ``now + window`` if nothing starts."""
    tags = tags or SpawnTags()
    return AgentJob(
        job_id=job_id,
        surface_id=surface_id,
        provider=provider,
        label=label,
        state=_J.LAUNCHING,
        run_id=None,
        session_id=None,
        message=None,
        baseline=frozenset(baseline),
        deadline=now + window,
        key=tags.key,
        spawn_digest=tags.spawn_digest,
        lead=tags.lead,
        notify_lead=tags.notify_lead,
        budget_tokens=tags.budget_tokens,
        budget_usd=tags.budget_usd,
    )


def queue(
    job: AgentJob, reason: str, ticket: int, message: str, *, paced: bool = False
) -> AgentJob:
    """``job`` waiting for admission: ``queued`` with ``reason`` and its place ``ticket``.

    Its agent has not started, so it is unbound with no baseline of its own yet; ``message``
    says why it waits (it is replaced by the run's once the job runs).
    """
    return replace(
        job,
        state=_J.QUEUED,
        run_id=None,
        message=message,
        queued_because=reason,
        queue_ticket=ticket,
        paced=paced,
        bound_completed_by_idle=False,
        live_subagents=0,
    )


def still_queued(job: AgentJob, reason: str, message: str) -> AgentJob:
    """A queued job whose reason for waiting changed (its place stays); any other job (one
    that started or went meanwhile) is returned unchanged."""
    if job.state is not _J.QUEUED or (job.queued_because == reason and job.message == message):
        return job
    return replace(job, queued_because=reason, message=message)


def admitted(
    job: AgentJob, baseline: Iterable[RunId], now: float, window: float = LAUNCH_WINDOW_SECONDS
) -> AgentJob:
    """A queued job whose worker starts now: ``launching``, following the pane's next run,
    with its launch window opening now (not when it was queued)."""
    return replace(
        job,
        state=_J.LAUNCHING,
        run_id=None,
        message=None,
        baseline=job.baseline | frozenset(baseline),
        deadline=now + window,
        queued_because=None,
        queue_ticket=None,
    )


def ended_by_memory_limit(job: AgentJob, limit_mb: int) -> AgentJob:
    """The worker was killed by its memory cap: ``failed`` with ``end_reason`` memory-limit."""
    return replace(
        job,
        state=_J.FAILED,
        end_reason=MEMORY_LIMIT_REASON,
        message=f"The worker was killed by its memory cap ([admission] worker_memory_max_mb = "
        f"{limit_mb}).",
    )


def spawn_digest(provider: WorkerProvider, task: str) -> str:
    """What makes two ``agent spawn --key K`` requests "the same": provider and task text."""
    return stable_uuid("spawn", provider.value, task)


def holds_key(job: AgentJob) -> bool:
    """Does a keyed job still answer its key? Every job does, finished ones too, except one the
    lead cannot go back to: ``lost`` (its pane is gone), ``launch-failed`` (its agent never
    started) or closed with ``agent close``. A new spawn then takes the key over."""
    if job.key is None or job.state in (_J.LOST, _J.LAUNCH_FAILED):
        return False
    return job.launch is None or not job.launch.closed


def notice_token(job: AgentJob) -> str | None:
    """What the lead has to hear about ``job`` now, as a token (None: nothing to tell).

    A job that ended, or waits for input or approval, has one; the token names the run and the
    state, so each outcome of each run is told once (a re-armed job's next run is news again).
    """
    if job.state in TERMINAL_JOB_STATES or job.state in ATTENTION_JOB_STATES:
        return f"{job.run_id or '-'}:{job.state.value}"
    return None


def pending_notice(job: AgentJob) -> bool:
    """Has ``job`` (spawned with ``--notify-lead``) news its lead has not been told?"""
    if not job.notify_lead or job.lead is None:
        return False
    token = notice_token(job)
    return token is not None and token != job.notified


@dataclass(frozen=True, slots=True)
class LaunchClues:
    """What the controller saw in the pane when a job's launch window closed without a run.

    ``agent_running``: the provider's own process is in the pane's foreground, so the agent
    visibly started and only its hooks stayed silent. ``unplaced_events``: codex hook events
    mytty refused since the spawn because no pane's codex holds their session (their hooks ran
    in a Codex background server started from another environment).
    """

    agent_running: bool = False
    unplaced_events: int = 0
    #: The agent exited before its first run (the shell reported its exit): the agent's last
    #: words from the pane ("" when it printed nothing), and the exit status.
    exited: str | None = None
    exit_status: int | None = None
    #: The pane shows the agent's sign-in screen: that line.
    sign_in: str | None = None


#: The start of the message of a job whose worker waits at its sign-in screen.
NOT_SIGNED_IN = "not signed in"


def exited_message(provider: WorkerProvider, words: str, status: int | None) -> str:
    """Why a job whose agent exited before its first run is ``launch-failed``."""
    how = f" with status {status}" if status is not None else ""
    said = f": {words}" if words else " (it printed nothing)"
    return f"{provider.value} exited{how} before its first run{said}"


def launch_failed_message(provider: WorkerProvider, clues: LaunchClues | None = None) -> str:
    """Why a job ended ``launch-failed``, naming the likely cause from ``clues``."""
    agent = provider.agent_provider.value
    head = f"No {provider.value} run was observed within the launch window after spawning"
    if clues is not None and clues.unplaced_events:
        return (
            f"{head}, but mytty refused {clues.unplaced_events} codex hook event(s) it could "
            "not place on any pane: those hooks ran in a Codex background server (app-server "
            "daemon) started from another environment. Stop it with `codex app-server daemon "
            "stop` and start codex with --no-daemon (mytty's workers already do)."
        )
    if clues is not None and clues.agent_running:
        daemon = (
            "; or a Codex background server started from another environment runs its hooks "
            "(`codex app-server daemon stop`)"
            if provider is WorkerProvider.CODEX
            else ""
        )
        return (
            f"{head}, although {provider.value} is running in the worker's pane: its hooks did "
            f"not report to mytty. Check `mytty integrations list` ({agent} must be installed), "
            "and that the pane's environment still has MYTTY_EVENT_SOCKET (a shell profile may "
            f"unset it){daemon}."
        )
    return (
        f"{head} (did the agent start, and is the {agent} hook integration installed? "
        f"see `mytty-ctl integration list`)."
    )


def is_eligible(job: AgentJob, run: AgentRun) -> bool:
    """Could ``job`` bind to ``run``? (right pane and provider, new, and really started)"""
    return (
        run.surface_id.upper() == job.surface_id.upper()
        and run.provider == job.provider.agent_provider
        and run.id not in job.baseline
        and run.state not in _UNBINDABLE_RUN_STATES
        # A job that knows its conversation (a session id mytty chose at spawn, or the one a
        # resumed worker continues) binds only to that conversation's runs.
        and (job.session_id is None or run.session_id in (None, job.session_id))
    )


def bind_order(run: AgentRun) -> tuple[bool, float, bool, float, str]:
    """Sort key choosing the run a job binds to: earliest start, then earliest update, then id."""
    return (
        run.started_at is None,
        run.started_at if run.started_at is not None else 0.0,
        run.updated_at is None,
        run.updated_at if run.updated_at is not None else 0.0,
        run.id,
    )


def _apply(job: AgentJob, run: AgentRun, runs: Sequence[AgentRun]) -> AgentJob:
    if run.state == _R.UNKNOWN:
        # The reducer never moves a run back to unknown; a bound job keeps what it had.
        return job
    session_id = run.session_id if run.session_id is not None else job.session_id
    job = replace(job, live_subagents=run.live_subagent_count)
    if run.state == _R.PARKED:
        return _park(replace(job, session_id=session_id), run, runs)
    if run.state in _ENDED_OTHERWISE:
        job = replace(job, limit_streak=0)
    if run.state == _R.IDLE:
        return replace(
            job,
            state=_J.DISCONNECTED,
            session_id=session_id,
            message=INTERRUPTED_MESSAGE,
            bound_completed_by_idle=True,
        )
    # The message is the run's current one, never an older one kept: the reducer gives a run
    # the message of the event that last moved it, so "Bash requires approval" goes away as
    # soon as the run leaves waiting-approval (a stale note on a succeeded job misleads).
    return replace(job, state=_RUN_TO_JOB[run.state], session_id=session_id, message=run.message)


#: A run that ended in one of these ends a streak of usage-limit parks.
_ENDED_OTHERWISE = frozenset({_R.SUCCEEDED, _R.FAILED, _R.DISCONNECTED, _R.IDLE})


def _park(job: AgentJob, run: AgentRun, runs: Sequence[AgentRun]) -> AgentJob:
    """``job``'s run stopped at a usage limit: parked, its next run being a new one."""
    streak = job.limit_streak + 1
    park = Park(
        run_id=run.id,
        parked_at=run.updated_at if run.updated_at is not None else 0.0,
        streak=streak,
        held=held_by_streak(streak),
    )
    return replace(
        job,
        state=_J.PARKED,
        run_id=run.id,
        message=run.message,
        park=park,
        limit_streak=streak,
        live_subagents=0,
        # Every other run so far is old news: only a later one can end the park.
        baseline=job.baseline | {r.id for r in runs if r.id != run.id},
    )


def needs_clues(job: AgentJob, now: float) -> bool:
    """True when :func:`reconcile` at ``now`` may end the job ``launch-failed`` by what runs in
    the pane (so the caller should look at its foreground for :class:`LaunchClues`): at the
    deadline, or while it waits at a sign-in screen."""
    if job.run_id is not None:
        return False
    return job.state is _J.WAITING_INPUT or (job.state is _J.LAUNCHING and now >= job.deadline)


def _sign_in(job: AgentJob, clues: LaunchClues) -> AgentJob:
    """rule 6: the job of a worker waiting at its sign-in screen."""
    message = f"{NOT_SIGNED_IN}: {clues.sign_in}"
    if job.provider in SIGN_IN_KEEPS_TASK:
        return replace(job, state=_J.WAITING_INPUT, message=message)
    return replace(job, state=_J.LAUNCH_FAILED, message=message)


def _unbound(job: AgentJob, now: float, clues: LaunchClues | None) -> AgentJob:
    """rules 5-7: a job with no run yet."""
    if clues is not None and clues.exited is not None:
        message = exited_message(job.provider, clues.exited, clues.exit_status)
        return replace(job, state=_J.LAUNCH_FAILED, message=message)
    if job.state is _J.WAITING_INPUT and clues is not None and not clues.agent_running:
        # It stopped at the sign-in screen, and its agent has left the pane since.
        why = f"{job.provider.value} left the pane before its first run ({job.message})"
        return replace(job, state=_J.LAUNCH_FAILED, message=why)
    if clues is not None and clues.sign_in is not None:
        return _sign_in(job, clues)
    if job.state is _J.WAITING_INPUT:
        return job  # it waits for a human, or for its first run
    if now >= job.deadline:
        return replace(
            job, state=_J.LAUNCH_FAILED, message=launch_failed_message(job.provider, clues)
        )
    return job


def reconcile(
    job: AgentJob,
    runs: Sequence[AgentRun],
    pane_exists: bool,
    now: float,
    clues: LaunchClues | None = None,
) -> AgentJob:
    """Bring ``job`` up to date with the runs of its pane and provider (see the module docstring).

    ``clues`` only shape the message of a job that ends ``launch-failed``.
    """
    if is_terminal(job.state):
        return job
    if not pane_exists:
        if job.state is _J.QUEUED:
            return replace(job, state=_J.LOST, message=CANCELLED_MESSAGE, queue_ticket=None)
        return replace(job, state=_J.LOST)
    if job.state is _J.QUEUED:
        return job  # its agent has not started: nothing to bind to, no window running
    if job.state is _J.PARKED:
        # Only the conversation's next run ends a park (whatever the parked run does next).
        eligible = [run for run in runs if run.id != job.run_id and is_eligible(job, run)]
        if not eligible:
            return job
        winner = min(eligible, key=bind_order)
        return _apply(replace(job, run_id=winner.id, park=None), winner, runs)
    if job.run_id is not None:
        for run in runs:
            if run.id == job.run_id:
                return _onward(_bound(_apply(job, run, runs), run, clues), now)
        return job
    eligible = [run for run in runs if is_eligible(job, run)]
    if eligible:
        winner = min(eligible, key=bind_order)
        bound = replace(job, run_id=winner.id, follow_through=None)
        return _onward(_bound(_apply(bound, winner, runs), winner, clues), now)
    if job.follow_through is not None:
        return _follow_through_lapsed(job, now, clues)
    return _unbound(job, now, clues)


def _onward(job: AgentJob, now: float) -> AgentJob:
    """A bound run that ended with a follow-up pending: follow the run the follow-up starts."""
    if job.follow_up_at is None or job.state not in _FOLLOWED_THROUGH or job.run_id is None:
        return job
    return replace(
        job,
        state=_J.LAUNCHING,
        run_id=None,
        message=None,
        # Only the ended run joins the baseline: any other run outside it started after the
        # job bound, so it is the follow-up's (mytty may hear of both at once).
        baseline=job.baseline | {job.run_id},
        deadline=now + FOLLOW_THROUGH_WINDOW_SECONDS,
        follow_up_at=None,
        follow_through=FollowThrough(job.run_id, job.state, job.message),
        bound_completed_by_idle=False,
    )


def _follow_through_lapsed(job: AgentJob, now: float, clues: LaunchClues | None) -> AgentJob:
    """No run came of the follow-up (yet): at the window's end, or once the agent has left the
    pane, the job takes back the outcome it left."""
    through = job.follow_through
    assert through is not None
    if now < job.deadline and (clues is None or clues.exited is None):
        return job
    return replace(
        job,
        state=through.state,
        run_id=through.run_id,
        message=through.message,
        # Bound again to the run it had left: that run leaves the baseline _onward put it in
        # (a job is never bound to a baseline run; it was not in it while bound before).
        baseline=job.baseline - {through.run_id},
        follow_through=None,
    )


def _bound(job: AgentJob, run: AgentRun, clues: LaunchClues | None) -> AgentJob:
    """rule 6 for a bound job: a running run whose agent waits at its sign-in screen."""
    if (
        clues is not None
        and clues.sign_in is not None
        and run.state == _R.RUNNING
        and job.provider in SIGN_IN_KEEPS_TASK
    ):
        return replace(job, state=_J.WAITING_INPUT, message=f"{NOT_SIGNED_IN}: {clues.sign_in}")
    return job


def prepare_for_follow_up(
    job: AgentJob,
    current_run_ids: Iterable[RunId],
    now: float,
    window: float = LAUNCH_WINDOW_SECONDS,
) -> AgentJob:
    """Re-arm a finished job before a follow-up ``agent send`` so it follows the next run.

    Only from succeeded, failed or disconnected (which includes a job ended by an idle run).
    Every run id seen so far joins the baseline, the job is unbound and ``launching`` again with
    a fresh deadline, and the previous run's message is dropped so it can't be mistaken for the
    new run's. A job whose bound run is ``running`` only notes ``follow_up_at``: it follows the run the text starts once its run ends (see the module
    docstring). A launching, waiting (text then answers within the turn), parked, lost or
    launch-failed job is returned unchanged.
    """
    if job.state in _ACTIVE_JOB_STATES and job.run_id is not None:
        return replace(job, follow_up_at=now)  # followed when this run ends (module docstring)
    if job.state not in REARMABLE_JOB_STATES:
        return job
    baseline = job.baseline | frozenset(current_run_ids)
    if job.run_id is not None:
        baseline |= {job.run_id}
    return replace(
        job,
        state=_J.LAUNCHING,
        run_id=None,
        message=None,
        baseline=baseline,
        deadline=now + window,
        bound_completed_by_idle=False,
        follow_up_at=None,
        follow_through=None,
    )


def satisfies(job: AgentJob, until: WaitCondition) -> bool:
    """Does ``job`` meet an ``agent wait --until`` condition?

    ``running``: anything but ``queued`` and ``launching`` (launch-failed and lost included, so
    the wait ends; a queued job is waited through);
    ``attention``: waiting-input or waiting-approval, or a terminal state (nothing left to wait
    for); ``completed``: a terminal state.
    """
    if until == "running":
        return job.state not in (_J.LAUNCHING, _J.QUEUED)
    if until == "attention":
        # A difference from the original: a job that ended can no longer need attention
        # without a follow-up, so the wait ends instead of running into its timeout.
        return job.state in ATTENTION_JOB_STATES or is_terminal(job.state)
    if until == "completed":
        return is_terminal(job.state)
    raise ValueError(f"unknown wait condition {until!r}")
