"""The explanation of one pane or job: the state mytty shows, why, and what would change it.

:func:`explain` is pure: it reads an :class:`~mytty.core.explain.inputs.ExplainInputs` and
returns an :class:`Explanation`:

- ``state``: what mytty shows: the job's state for a job, the pane's ``agentState`` (its
  most relevant run) for a pane; ``summary`` says in one sentence where it comes from;
- ``evidence``: the last stored events of the runs that matter, oldest first, each with its
  source (:mod:`mytty.core.explain.sources`), what it saw, and its effect on its run
  (:mod:`mytty.core.explain.evidence`);
- ``next``: the transitions out of the state and who would send each
  (:mod:`mytty.core.explain.producers`), as job states for a job;
- ``warnings``: :mod:`mytty.core.explain.warnings`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mytty.core import vocab
from mytty.core.estimation import epochs
from mytty.core.events import AgentEventKind, AgentProvider, AgentRunState
from mytty.core.explain import producers
from mytty.core.explain.evidence import Evidence, gather
from mytty.core.explain.inputs import ExplainInputs, Observations, shown_run
from mytty.core.explain.producers import Following
from mytty.core.explain.sources import Source, is_hook, origin
from mytty.core.explain.warnings import Context, Finding, duration, findings
from mytty.core.jobs import tracker
from mytty.core.jobs.tracker import AgentJob, AgentJobState
from mytty.core.runs.run import AgentRun

#: The native events that exist only in turn mode.
_TURN_EVENTS = frozenset(
    {
        epochs.TURN_STARTED,
        epochs.TURN_COMPLETED,
        epochs.TURN_FAILED,
        epochs.TURN_INTERRUPTED,
        epochs.TURN_SUPERSEDED,
    }
)


@dataclass(frozen=True, slots=True)
class Step:
    """One way the state could change next: the event ``kind`` (None: not an event, e.g. a
    launch window closing), the ``state`` it leads to, and who or what would cause it."""

    kind: AgentEventKind | None
    state: str
    by: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Explanation:
    surface_id: str
    by_job: bool
    job: AgentJob | None
    state: str | None
    summary: str
    run: AgentRun | None
    following: Following | None
    evidence: tuple[Evidence, ...]
    next: tuple[Step, ...]
    warnings: tuple[Finding, ...]
    observations: Observations
    integrations: dict[AgentProvider, str]


def explain(inputs: ExplainInputs) -> Explanation:
    """Why the pane or job of ``inputs`` shows what it shows (see the module docstring)."""
    job = inputs.job
    asked = job if inputs.by_job else None  # a pane's state is its run's, even with a job
    shown = shown_run(inputs.runs, asked, inputs.relevant)
    provider = _provider(inputs, shown)
    following = _following(inputs, provider, shown) if provider is not None else None
    if asked is not None:
        state: str | None = asked.state.value
    else:
        state = shown.state.value if shown is not None else None
    ctx = Context(inputs, shown, provider)
    return Explanation(
        surface_id=inputs.surface_id,
        by_job=inputs.by_job,
        job=job,
        state=state,
        summary=_summary(inputs, shown, following),
        run=shown,
        following=following,
        evidence=gather(inputs, shown),
        next=_next(inputs, shown, provider, following),
        warnings=findings(ctx),
        observations=inputs.observations,
        integrations=dict(inputs.integrations),
    )


# -- who follows the pane ---------------------------------------------------------------------


def _provider(inputs: ExplainInputs, shown: AgentRun | None) -> AgentProvider | None:
    if shown is not None:
        return shown.provider
    fg = inputs.observations.foreground
    if inputs.job is not None and (inputs.by_job or fg is None or fg.provider is None):
        return inputs.job.provider.agent_provider
    return fg.provider if fg is not None else None


def _following(inputs: ExplainInputs, provider: AgentProvider, shown: AgentRun | None) -> Following:
    """How the provider's agent in this pane is followed: hooked when its integration is
    installed or its hooks reported here; estimated while native estimation has an epoch for
    it, or when the shown run's events are estimates."""
    status = inputs.integrations.get(provider, vocab.NOT_INSTALLED)
    mine = [
        s.event
        for s in inputs.window.events
        if s.event.provider is provider and s.event.surface_id == inputs.surface_id
    ]
    on_shown = [e for e in mine if shown is not None and e.run_id == shown.id]
    natively = [e for e in on_shown if origin(e).source is Source.NATIVE]
    epoch = inputs.observations.epoch
    live = epoch is not None and epoch.provider is provider and not epoch.covered
    live = live and epoch is not None and epoch.phase != "ended"
    if live and epoch is not None:
        turn_mode = epoch.turn_mode
    else:
        turn_mode = any(e.hook_name in _TURN_EVENTS for e in natively)
    return Following(
        hooked=status != vocab.NOT_INSTALLED or any(is_hook(e) for e in mine),
        estimated=live or bool(natively),
        turn_mode=turn_mode,
    )


def _how(following: Following | None) -> str:
    if following is None:
        return ""
    if following.hooked and following.estimated:
        return "its hooks, and native estimation until they report"
    if following.hooked:
        return "its hooks"
    if following.estimated:
        per = "per turn, from its transcript" if following.turn_mode else "per process"
        return f"native estimation ({per}; no hooks installed)"
    return "nothing: no hooks installed and no agent in front"


# -- the summary ------------------------------------------------------------------------------


def _summary(inputs: ExplainInputs, shown: AgentRun | None, following: Following | None) -> str:
    how = _how(following)
    followed = f"; followed by {how}" if how else ""
    job = inputs.job
    if job is not None and inputs.by_job:
        return _job_summary(inputs, job, shown) + followed
    here = f"; job {job.job_id[:8]} here is {job.state.value}" if job is not None else ""
    if shown is None:
        fg = inputs.observations.foreground
        agent = f"{fg.provider.value} is in front, " if fg is not None and fg.provider else ""
        return f"no agent run in this pane yet ({agent}nothing reported a run)" + followed + here
    count = len(inputs.runs)
    among = f" of its {count} runs" if count > 1 else ""
    return (
        f"the pane's most relevant run{among}, {_short(shown.id)} ({shown.provider.value}), "
        f"is {shown.state.value}" + followed + here
    )


def _job_summary(inputs: ExplainInputs, job: AgentJob, shown: AgentRun | None) -> str:
    name = job.provider.value
    if job.state is AgentJobState.LAUNCH_FAILED:
        return job.message or f"no {name} run started within the launch window"
    if job.state is AgentJobState.LOST and shown is None:
        return "the job's pane is gone"
    if job.state is AgentJobState.PARKED:
        return job.message or "the job is parked at its provider's usage limit"
    if job.run_id is None and job.follow_through is not None:
        left = duration(max(0.0, job.deadline - inputs.now))
        through = job.follow_through
        return (
            f"run {_short(through.run_id)} ended {through.state.value} while a follow-up sent "
            f"to it was pending: the job waits for the run the follow-up starts, and ends "
            f"{through.state.value} with run {_short(through.run_id)} if none starts in {left}"
        )
    if job.run_id is None:
        left = duration(max(0.0, job.deadline - inputs.now))
        base = len(job.baseline)
        older = f" (its {base} older runs there are not its own)" if base else ""
        return (
            f"the job waits for the first {name} run to start in its pane{older}; its launch "
            f"window closes in {left}"
        )
    if shown is None:
        return (
            f"the job is bound to run {_short(job.run_id)}, which is no longer in memory: it "
            "keeps its last state"
        )
    text = f"the job follows run {_short(shown.id)}, which is {shown.state.value}"
    if job.follow_up_at is not None:
        text += " (a follow-up was sent to it: the job follows the run that starts next)"
    if job.bound_completed_by_idle:
        text += " (it went idle before finishing, so the job ended disconnected)"
    return text


def _short(run_id: str) -> str:
    return run_id[:8]


# -- what would change it next ----------------------------------------------------------------


def _next(
    inputs: ExplainInputs,
    shown: AgentRun | None,
    provider: AgentProvider | None,
    following: Following | None,
) -> tuple[Step, ...]:
    job = inputs.job
    if provider is None or following is None:
        return ()
    if job is not None and inputs.by_job:
        return _job_next(inputs, job, shown, provider, following)
    state = shown.state if shown is not None else AgentRunState.UNKNOWN
    return tuple(
        Step(s.kind, s.state.value, s.by) for s in producers.run_steps(state, provider, following)
    )


def _job_next(
    inputs: ExplainInputs,
    job: AgentJob,
    shown: AgentRun | None,
    provider: AgentProvider,
    following: Following,
) -> tuple[Step, ...]:
    if job.state in tracker.REARMABLE_JOB_STATES:
        return (Step(None, AgentJobState.LAUNCHING.value, ("a follow-up `agent send`",)),)
    if job.state is AgentJobState.LOST:
        launch = job.launch
        if job.session_id is None or launch is None or launch.closed:
            return ()
        return (Step(None, AgentJobState.LAUNCHING.value, ("`mytty resume`",)),)
    if job.state is AgentJobState.LAUNCH_FAILED:
        return ()
    if job.state is AgentJobState.PARKED:
        # Only its conversation's next turn ends a park, whoever starts it.
        goes_on = (
            "mytty's continuation after the reset",
            "the agent continuing by itself",
            "`mytty limits resume`",
        )
        return (Step(None, AgentJobState.RUNNING.value, goes_on),)
    if job.run_id is None:
        ways = producers.run_steps(AgentRunState.UNKNOWN, provider, following)
        steps = [
            Step(s.kind, AgentJobState.RUNNING.value, s.by)
            for s in ways
            if s.state is AgentRunState.RUNNING
        ]
        left = duration(max(0.0, job.deadline - inputs.now))
        # A job waiting for its follow-up's run gives back the outcome it left, not a failure.
        lapse = job.follow_through.state if job.follow_through else AgentJobState.LAUNCH_FAILED
        steps.append(Step(None, lapse.value, (f"no run starting within {left}",)))
        return tuple(steps)
    if shown is None:
        return ()
    steps = []
    for s in producers.run_steps(shown.state, provider, following):
        moved = tracker.reconcile(job, [replace(shown, state=s.state)], True, inputs.now)
        if moved.state is not job.state:
            steps.append(Step(s.kind, moved.state.value, s.by))
    return tuple(steps)
