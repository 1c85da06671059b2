"""``explain``: why mytty shows what it shows for a pane or a job (a mytty addition).

The handler finds the target (:mod:`mytty.core.explain.target`), reconciles the job, reads the
newest stored events of the few runs that matter (:func:`mytty.core.explain.inputs.runs_to_read`,
one indexed read per run in a thread) and what the controller sees in the pane now, and hands
them to the pure builder (:func:`mytty.core.explain.build.explain`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import PANE_ID, Arg, Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import (
        EvidenceAccess,
        IntegrationStatus,
        JobStore,
        PaneDirectory,
        RunWaiter,
    )
    from mytty.core.events import AgentProvider
    from mytty.core.explain.inputs import Observations
    from mytty.core.ids import SurfaceId
    from mytty.core.jobs.tracker import AgentJob
    from mytty.core.runs.run import AgentRun
    from mytty.protocol.replies import ExplanationReply

    class ExplainContext(
        PaneDirectory, RunWaiter, JobStore, IntegrationStatus, EvidenceAccess, Protocol
    ):
        """What ``explain`` uses of the controller."""


TARGET = Arg(
    "PANE|JOB",
    "target",
    "a pane id or a job id, or a prefix of one that names only it (any letter case), or "
    "tmux's name for a pane (%3, work:1.0, @2, $1)",
    kind=PANE_ID,
)

COMMAND = Command(
    name="explain",
    wire="explain",
    summary="why a pane or job shows its state: the evidence, what comes next, what looks wrong",
    args=(TARGET,),
    errors=(codes.PANE_NOT_FOUND, codes.INVALID_REQUEST),
    guide="""\
Why a pane or job shows what it shows: the state, the run it comes from, the last events with
their source (the agent's hook and its name, native estimation and what it saw, the startup
sweep, resume), what would change it next, and warnings (.warnings[].code, e.g. hooks-silent,
agent-gone). explain JOB_ID (or a unique prefix, or a pane id) | jq .warnings""",
    doc="""
Why the pane or job shows what it shows, as one object: the state mytty reports for it (the
job's `state`, or the pane's `agentState` from its most relevant run), a `summary` sentence
saying where that comes from, who moves it (`following`: its `hooks`, `nativeEstimation`,
`perTurn` from the transcript; null when no agent is known), the `run` it comes from, the newest stored events of the runs
that matter (`evidence`, oldest first), what the controller sees in the pane now (`observed`),
what would change the state next (`next`) and anything that looks wrong (`warnings`). An
addition to the original; `mytty explain` prints the same for humans
([how to read one](../explanation/explanations.md)).

`PANE|JOB` is a pane id (also of a pane that is gone but still has runs), a job id, or a prefix
of either that only one pane or job starts with (`mytty ls` shows a job's first 8 characters).
A prefix that several match is `invalid-request` naming them; nothing matching is
`pane-not-found`. A pane whose newest job still lives in it also carries that `job`.

Each evidence item has the event's fields (`sequence`, `occurredAt`, `runID`, `provider`,
`kind`, `hookName`, `toolName`, and `message` clipped to 500 characters), its `source` — `hook` (the agent's own hook;
`hookName` is the provider's event name), `native` (native estimation: the foreground process,
the shell's exit report through OSC 133, the transcript's turns), `transcript` (read from a
hooked agent's transcript: Claude's Esc, Codex's model API error), `startup-sweep`,
`superseded` (a newer Claude prompt), `resume` (`mytty resume`), `estimate` (the Cursor
approval estimate) or `mytty` (another name mytty wrote) — `what` it saw in words, its
`effect` on its run as the reducer applied it (`running → succeeded`, `ignored: the run was
succeeded`;
null when the run has more stored events than were read), and `shownRun` (it is on the run the
state comes from). At most 20 events are read per run, of at most 8 runs: the shown run, the
job's resumptions, the newest 3 runs of its provider in the pane, then the pane's newest.

`next` lists each way out of the state: the event `kind` (null when no event causes it: a
launch window closing, a follow-up `agent send`, `mytty resume`), the `state` it leads to (a
job state for a job) and `by`, who would send it (`the Stop hook`, `the transcript's turn end
(mytty.native.turnCompleted)`, …).

`warnings[].code` is one of `hooks-silent` (the provider's hooks are installed but none
reached mytty for its last 3 turns, or since Claude started), `integration-needs-repair`,
`launch-deadline-near` (a launching job with 10 s or less left), `agent-gone` (an active run
whose agent left the pane's foreground: no hook will end it), `pane-gone` (an active run of a
gone pane, or a lost job, saying whether `mytty resume` can restart it), `codex-unplaced`
(Codex hook events mytty could not place on any pane), `older-run-active` (an older active run
speaks for the pane although a newer one ended), `evidence-unreadable` (the store could not be
read); `message` says what to check.

Request `{"type":"explain","target":"04AA9DA1"}`. Reply (shortened):

```json
{"evidence":[{"effect":"unknown → running","hookName":"UserPromptSubmit","kind":"started","occurredAt":"2026-07-16T07:00:00.120Z","provider":"claude-code","runID":"91AC8931-9D51-5F4D-A10D-39D5A5443351","sequence":41,"shownRun":true,"source":"hook","what":"claude-code hook UserPromptSubmit"}],"job":{"jobID":{"rawValue":"04AA9DA1-F255-412D-808A-A53E2525DB4F"},"…":"…"},"jobID":{"rawValue":"04AA9DA1-F255-412D-808A-A53E2525DB4F"},"next":[{"by":["the Stop hook"],"kind":"succeeded","state":"succeeded"}],"observed":{"epoch":null,"foreground":{"agent":"claude-code","agentPID":4242,"agentStartedAt":"2026-07-16T06:59:58.010Z","command":"claude","pid":4242},"integrations":{"claude-code":"installed"},"paneAlive":true,"shell":null,"transcript":null},"paneID":"201841B5-2A1E-41BE-93CD-775F48479797","run":{"…":"…"},"state":"running","summary":"the job follows run 91AC8931, which is running; followed by its hooks","target":"job","type":"explanation","warnings":[]}
```
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("target",)

    def __init__(self, target: str) -> None:
        self.target = target


def parse(request: Request) -> Params:
    return Params(request.text(TARGET))


async def handle(ctx: ExplainContext, params: Params) -> ExplanationReply:
    from mytty.core.explain import build, inputs
    from mytty.protocol import wire

    job, surface, by_job = _target(ctx, params.target)
    book = ctx.hub.book
    runs = tuple(book.runs_for_surface(surface))
    relevant = book.most_relevant(surface)
    asked = job if by_job else None  # a pane's state is its own run's, even with a job there
    shown = inputs.shown_run(runs, asked, relevant.id if relevant is not None else None)
    wanted = inputs.runs_to_read(shown, runs, job)
    window = await ctx.evidence.recent_events(wanted, inputs.EVENTS_PER_RUN)
    observations = ctx.evidence.observations(surface, None)
    explanation = build.explain(
        inputs.ExplainInputs(
            surface_id=surface,
            runs=runs,
            window=window,
            observations=observations,
            now=ctx.hub.now(),
            job=job,
            by_job=by_job,
            relevant=relevant.id if relevant is not None else None,
            integrations=await _statuses(ctx, job, shown, observations),
        )
    )
    snapshot = ctx.jobs.snapshot(job) if job is not None else None
    return wire.explanation_reply(explanation, snapshot)


def _target(ctx: ExplainContext, text: str) -> tuple[AgentJob | None, SurfaceId, bool]:
    """(the job, reconciled now, or the newest job still in the pane; the pane; whether the
    job was asked for)."""
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.explain.target import Unresolved, resolve
    from mytty.core.ids import parse_surface_id
    from mytty.tmux import pane_names

    if pane_names.is_tmux_name(text):  # tmux's name for a pane (%3, work:1.0), as require_pane
        named = pane_names.find(text, ctx.panes.panes())
        if named is None:
            raise MyttyError(
                ErrorCode.PANE_NOT_FOUND, f"no pane is called {text.strip()!r} in tmux"
            )
        text = named.surface_id
    panes = list(ctx.panes.by_surface)
    full = parse_surface_id(text.strip())
    gone = full is not None and full not in ctx.panes.by_surface
    if gone and full is not None and ctx.hub.book.runs_for_surface(full):
        panes.append(full)  # a pane that is gone, whose runs are still kept
    try:
        target = resolve(text, panes, ctx.jobs.ids())
    except Unresolved as exc:
        code = ErrorCode.INVALID_REQUEST if exc.candidates else ErrorCode.PANE_NOT_FOUND
        raise MyttyError(code, str(exc)) from None
    if target.job_id is not None:
        try:
            job = ctx.jobs.current(target.job_id)
        except MyttyError as exc:
            if exc.code is not ErrorCode.JOB_NOT_FOUND:
                raise
            raise MyttyError(
                ErrorCode.PANE_NOT_FOUND, f"no pane or job matches {text.strip()!r}"
            ) from None
        return job, job.surface_id, True
    assert target.surface_id is not None
    newest = ctx.jobs.newest_in_pane(target.surface_id)
    here = ctx.jobs.current(newest.job_id) if newest is not None else None
    if here is not None and here.surface_id != target.surface_id:
        here = None  # resumed elsewhere since: it no longer lives here
    return here, target.surface_id, False


async def _statuses(
    ctx: ExplainContext, job: AgentJob | None, shown: AgentRun | None, observations: Observations
) -> dict[AgentProvider, str]:
    """The integration status of every provider the explanation names."""
    providers: list[AgentProvider] = []
    if shown is not None:
        providers.append(shown.provider)
    if job is not None:
        providers.append(job.provider.agent_provider)
    fg = observations.foreground
    if fg is not None and fg.provider is not None:
        providers.append(fg.provider)
    return {p: await ctx.integrations.status(p) for p in dict.fromkeys(providers)}
