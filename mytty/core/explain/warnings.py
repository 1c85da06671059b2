"""The rules that say something looks wrong, each a small function over the explanation's inputs.

Each rule returns a :class:`Finding` (a stable ``code`` for scripts, a sentence saying what to
check) or None. They only read what :class:`~mytty.core.explain.inputs.ExplainInputs` holds,
so every one is tested without a controller (``tests/core/explain/test_warnings.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mytty.core import vocab
from mytty.core.estimation import epochs
from mytty.core.events import AgentEvent, AgentProvider, AgentRunState
from mytty.core.explain.inputs import RECENT_TURNS, ExplainInputs
from mytty.core.explain.sources import is_hook
from mytty.core.jobs.tracker import AgentJobState
from mytty.core.runs.run import AgentRun, updated_or_past

#: A job this close to its launch deadline (seconds) with no run yet is worth a word.
LAUNCH_NEAR_S = 10.0
#: Claude sends SessionStart as it starts: this long in front without one means its hooks are
#: not reaching mytty.
HOOK_SILENCE_S = 30.0
#: A run whose agent left the foreground this recently may still get its closing hook.
AGENT_GONE_GRACE_S = 2.0

HOOKS_SILENT = "hooks-silent"
NEEDS_REPAIR = "integration-needs-repair"
LAUNCH_DEADLINE_NEAR = "launch-deadline-near"
AGENT_GONE = "agent-gone"
PANE_GONE = "pane-gone"
CODEX_UNPLACED = "codex-unplaced"
OLDER_RUN_ACTIVE = "older-run-active"
EVIDENCE_UNREADABLE = "evidence-unreadable"
#: Every code a finding may have (the reference lists them).
CODES: tuple[str, ...] = (
    HOOKS_SILENT,
    NEEDS_REPAIR,
    LAUNCH_DEADLINE_NEAR,
    AGENT_GONE,
    PANE_GONE,
    CODEX_UNPLACED,
    OLDER_RUN_ACTIVE,
    EVIDENCE_UNREADABLE,
)

_VERIFY = "check `mytty integrations verify`"
_ENDED = frozenset({AgentRunState.SUCCEEDED, AgentRunState.FAILED, AgentRunState.DISCONNECTED})
_NATIVE_TURNS = frozenset(
    {epochs.TURN_STARTED, epochs.TURN_COMPLETED, epochs.TURN_FAILED, epochs.TURN_INTERRUPTED}
)


@dataclass(frozen=True, slots=True)
class Finding:
    """Something that looks wrong: a ``code`` from :data:`CODES` and what to check."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Context:
    """The inputs plus what the builder already worked out: the shown run and its provider."""

    inputs: ExplainInputs
    shown: AgentRun | None
    provider: AgentProvider | None

    def status(self) -> str | None:
        return self.inputs.integrations.get(self.provider) if self.provider else None

    def events_of(self, run_id: str) -> list[AgentEvent]:
        return [s.event for s in self.inputs.window.events if s.event.run_id == run_id]


def duration(seconds: float) -> str:
    """``45s``, ``12m``, ``3h05m``, ``2d``: a length of time short enough for a sentence."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d"


def _short(run_id: str) -> str:
    return run_id[:8]


def hooks_silent_for_turns(ctx: Context) -> Finding | None:
    """The provider's hooks are installed, yet its newest turns were all seen natively."""
    status, provider = ctx.status(), ctx.provider
    if provider is None or status in (None, vocab.NOT_INSTALLED):
        return None
    mine = [r for r in ctx.inputs.runs if r.provider is provider]
    newest = sorted(mine, key=lambda r: (updated_or_past(r), r.id), reverse=True)[:RECENT_TURNS]
    if len(newest) < RECENT_TURNS:
        return None
    for run in newest:
        events = ctx.events_of(run.id)
        natively = any(e.hook_name in _NATIVE_TURNS for e in events)
        if not natively or any(is_hook(e) for e in events):
            return None
    return Finding(
        HOOKS_SILENT,
        f"{provider.value} hooks are {status}, but none was received for this agent's last "
        f"{RECENT_TURNS} turns (native estimation saw them in its transcript): {_VERIFY}; an "
        "agent started before its hooks were installed must be restarted to load them",
    )


def hooks_silent_since_start(ctx: Context) -> Finding | None:
    """Claude has been in front for a while and not one of its hooks arrived since it started
    (Claude sends SessionStart as it starts, so silence means its hooks do not reach mytty)."""
    fg = ctx.inputs.observations.foreground
    provider = AgentProvider.CLAUDE_CODE
    if fg is None or fg.provider is not provider or fg.agent_started_at is None:
        return None
    status = ctx.inputs.integrations.get(provider)
    ran = ctx.inputs.now - fg.agent_started_at
    if status != vocab.INSTALLED or ran < HOOK_SILENCE_S:
        return None
    since = fg.agent_started_at - 1.0
    for stored in ctx.inputs.window.events:
        event = stored.event
        if event.provider is provider and is_hook(event) and event.occurred_at >= since:
            return None
    return Finding(
        HOOKS_SILENT,
        f"{provider.value} has run in this pane for {duration(ran)} and none of its hooks "
        f"reached mytty, not even SessionStart: {_VERIFY}, and that the pane's environment "
        "still has MYTTY_EVENT_SOCKET (a shell profile may unset it)",
    )


def integration_needs_repair(ctx: Context) -> Finding | None:
    if ctx.provider is None or ctx.status() != vocab.NEEDS_REPAIR:
        return None
    return Finding(
        NEEDS_REPAIR,
        f"the {ctx.provider.value} hook integration needs repair: its hooks may not report "
        f"(`mytty integrations repair {ctx.provider.value}`)",
    )


def launch_deadline_near(ctx: Context) -> Finding | None:
    job = ctx.inputs.job
    if job is None or job.state is not AgentJobState.LAUNCHING or job.run_id is not None:
        return None
    left = job.deadline - ctx.inputs.now
    if left > LAUNCH_NEAR_S:
        return None
    agent = job.provider.agent_provider
    fg = ctx.inputs.observations.foreground
    if fg is not None and fg.provider is agent:
        seen = f"{job.provider.value} is in the pane's foreground, but its hooks have not reported"
    else:
        seen = f"{job.provider.value} is not in the pane's foreground"
    return Finding(
        LAUNCH_DEADLINE_NEAR,
        f"no {job.provider.value} run has started in the job's pane and its launch window "
        f"closes in {duration(max(0.0, left))} (then it is launch-failed): {seen}",
    )


def agent_gone(ctx: Context) -> Finding | None:
    """An active run whose agent is no longer in its pane's foreground, and no estimate that
    would end it: nothing will, until a restart's sweep."""
    run, obs = ctx.shown, ctx.inputs.observations
    fg = obs.foreground
    if run is None or not run.is_active or not obs.pane_alive or fg is None:
        return None
    if fg.process is not None and fg.provider in (None, run.provider):
        return None  # the agent (or a process mytty cannot name, maybe it) is still there
    epoch = obs.epoch
    if epoch is not None and epoch.provider is run.provider and not epoch.covered:
        return None  # native estimation ends it
    if ctx.inputs.now - updated_or_past(run) < AGENT_GONE_GRACE_S:
        return None
    instead = (
        "the pane's shell is at its prompt"
        if fg.process is None
        else f"{fg.command or (fg.provider.value if fg.provider else 'another process')} is"
    )
    shell = obs.shell
    if (
        shell is not None
        and shell.last_exit_status is not None
        and shell.last_exit_at is not None
        and shell.last_exit_at >= updated_or_past(run)
    ):
        instead += f"; its shell reported exit {shell.last_exit_status}"
    return Finding(
        AGENT_GONE,
        f"run {_short(run.id)} is {run.state.value}, but {run.provider.value} is no longer in "
        f"the pane's foreground ({instead}): no hook will end it; a controller restart "
        "(`mytty stop`, `mytty start`) ends it disconnected in its startup sweep",
    )


def pane_gone(ctx: Context) -> Finding | None:
    """The pane is gone: a run still active there, or the job that lived in it."""
    if ctx.inputs.observations.pane_alive:
        return None
    job, run = ctx.inputs.job, ctx.shown
    if job is not None and job.state is AgentJobState.LOST:
        launch = job.launch
        if job.session_id is not None and launch is not None and not launch.closed:
            hint = "`mytty resume` restarts the worker on its conversation"
        elif launch is not None and launch.closed:
            hint = "it was closed on purpose (`agent close`)"
        else:
            hint = "it cannot be resumed: mytty does not know its conversation or its launch"
        return Finding(PANE_GONE, f"the job's pane is gone, so the job is lost: {hint}")
    if run is not None and run.is_active:
        return Finding(
            PANE_GONE,
            f"run {_short(run.id)} is still {run.state.value} although its pane is gone: the "
            "next controller start's sweep ends it disconnected",
        )
    return None


def codex_unplaced(ctx: Context) -> Finding | None:
    obs = ctx.inputs.observations
    job = ctx.inputs.job
    codex = AgentProvider.CODEX
    is_codex = ctx.provider is codex or (
        obs.foreground is not None and obs.foreground.provider is codex
    )
    if job is not None:
        is_codex = is_codex or job.provider.agent_provider is codex
    if not is_codex or obs.unplaced_codex_events <= 0 or obs.codex_session is not None:
        return None
    return Finding(
        CODEX_UNPLACED,
        f"mytty refused {obs.unplaced_codex_events} Codex hook event(s) it could not place on "
        "any pane, and no Codex session is placed on this one: a Codex background server "
        "started from another environment may run its hooks (`codex app-server daemon stop`, "
        "then start codex with --no-daemon)",
    )


def older_run_active(ctx: Context) -> Finding | None:
    """The pane's most relevant run is an active one older than a run that already ended:
    ``wait --until idle`` keeps waiting for it."""
    inputs = ctx.inputs
    relevant = next((r for r in inputs.runs if r.id == inputs.relevant), None)
    if relevant is None or not relevant.is_active:
        return None
    newer = [
        r
        for r in inputs.runs
        if r.id != relevant.id
        and r.state in _ENDED  # not idle: a SessionStart marker, an interrupt
        and updated_or_past(r) > updated_or_past(relevant)
        and r.accepted_event_count > 0
    ]
    if not newer:
        return None
    latest = max(newer, key=updated_or_past)
    return Finding(
        OLDER_RUN_ACTIVE,
        f"an older run ({_short(relevant.id)}, {relevant.provider.value}) is still "
        f"{relevant.state.value} and speaks for the pane, although a newer run "
        f"({_short(latest.id)}) ended {latest.state.value}: `wait --until idle` waits for it",
    )


def evidence_unreadable(ctx: Context) -> Finding | None:
    error = ctx.inputs.window.error
    if error is None:
        return None
    return Finding(EVIDENCE_UNREADABLE, f"the stored events could not be read: {error}")


RULES: Sequence[Callable[[Context], Finding | None]] = (
    pane_gone,
    agent_gone,
    launch_deadline_near,
    hooks_silent_for_turns,
    hooks_silent_since_start,
    integration_needs_repair,
    codex_unplaced,
    older_run_active,
    evidence_unreadable,
)


def findings(ctx: Context) -> tuple[Finding, ...]:
    """Every rule's finding, in :data:`RULES` order, one per code."""
    out: dict[str, Finding] = {}
    for rule in RULES:
        found = rule(ctx)
        if found is not None and found.code not in out:
            out[found.code] = found
    return tuple(out.values())
