"""``waitAgent``: block until the job's own run is running, needs attention, or is completed.

Several jobs at once (``agent wait A B C --any|--all``, a mytty addition): one wait registered
on each job's pane (so only those panes' changes wake it), answering with every job's snapshot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from mytty.control.spec import (
    JOB,
    JOB_ARG,
    JOB_LIST,
    Arg,
    Command,
    Field,
    Option,
    Values,
    timeout_option,
)
from mytty.core import codes, vocab
from mytty.core.vocab import JOB_WAIT_CONDITIONS
from mytty.protocol.limits import MAX_WAIT_S

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import AgentChecks, JobStore, RunWaiter
    from mytty.core.jobs.tracker import AgentJob
    from mytty.core.vocab import JobWaitCondition
    from mytty.protocol.replies import AgentWaitResultReply

    class AgentWaitContext(JobStore, RunWaiter, AgentChecks, Protocol):
        """What ``agent_wait`` uses of the controller."""


DEFAULT_TIMEOUT_S = vocab.DEFAULT_WAIT_TIMEOUT_S
#: How many jobs one wait may name.
MAX_JOBS = 256
ANY, ALL = "any", "all"
MATCHES = (ANY, ALL)

UNTIL = Option(
    "--until",
    "CONDITION",
    "until",
    "running: the run started; attention: it waits for input or approval (or it ended); "
    "completed: it ended (a queued job is waited through)",
    choices=JOB_WAIT_CONDITIONS,
    required=True,
)
TIMEOUT = timeout_option(DEFAULT_TIMEOUT_S, MAX_WAIT_S)
#: Several jobs (``_client`` fills both from the JOB words and --any/--all).
JOBS = Field(
    "jobIDs",
    "every job of a several-job wait, in the order given (the first is also jobID)",
    kind=JOB_LIST,
    maximum=MAX_JOBS,
    nonempty=True,
)
MATCH = Field("match", "several jobs: any or all of them", choices=MATCHES)
RETURN_ON_PARK = Option(
    "--return-on-park",
    None,
    "returnOnPark",
    "return at once when a job is parked at its usage limit (else the wait goes on through it)",
)


def _client(request: dict[str, object], values: Values) -> None:
    """Several jobs (or --any/--all): send them all as ``jobIDs`` with ``match``."""
    jobs = values.positionals
    match = [flag[2:] for flag in ("--any", "--all") if flag in values.flags]
    if len(match) > 1:
        values.fail(codes.USAGE, "give --any or --all, not both")
    if len(jobs) > 1 and not match:
        values.fail(codes.USAGE, "several jobs need --any (the first to satisfy) or --all")
    if len(jobs) > MAX_JOBS:
        values.fail(codes.USAGE, f"at most {MAX_JOBS} jobs in one wait")
    if match:
        request[JOBS.key] = [{"rawValue": job} for job in jobs]
        request[MATCH.key] = match[0]
    if request.get(RETURN_ON_PARK.key) is False:
        del request[RETURN_ON_PARK.key]  # the original's request, byte for byte
    return None


COMMAND = Command(
    name="agent wait",
    wire="waitAgent",
    summary="wait for the run this job started (running, attention, completed)",
    heading=(
        "agent wait JOB [JOB…] [--any | --all] --until running|attention|completed "
        "[--return-on-park]"
    ),
    args=(
        JOB_ARG,
        Arg("JOB", None, "more jobs (with --any or --all)", kind=JOB, optional=True, variadic=True),
    ),
    options=(
        UNTIL,
        Option("--any", None, None, "several jobs: return once one of them satisfies --until"),
        Option("--all", None, None, "several jobs: return once every one of them satisfies it"),
        RETURN_ON_PARK,
        TIMEOUT,
    ),
    wire_fields=(JOBS, MATCH),
    wait_key=TIMEOUT.key,
    wire_order=("jobID", "jobIDs", "match", "until", "returnOnPark", "timeoutSeconds"),
    client=_client,
    errors=(
        codes.JOB_NOT_FOUND,
        codes.PROVIDER_INTEGRATION_NOT_INSTALLED,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE, codes.INVALID_REQUEST),
    guide=f"""\
Waits for the run this job started (never an older run). Default timeout {int(DEFAULT_TIMEOUT_S)} s
(0 to {int(MAX_WAIT_S)}: a week).
completed = succeeded, failed, disconnected, launch-failed or lost. A queued job (admission
holds its worker back) is waited through. A worker whose agent
exits before its first run is launch-failed at once (its message: the agent's own words);
one that never reports a run becomes launch-failed within 30 s (its message says why; a
provider CLI missing from PATH fails the spawn at once with provider-binary-not-found). A
worker at its sign-in screen reads waiting-input, "not signed in: …": tell the user. Runs come from
the provider's hook integration (check `mytty-ctl integration list`); without hooks, native
run estimation still starts and ends them (the agent in the pane's foreground, the shell's
exit status, the transcript's turns), without attention states. attention (waiting for
input or approval) needs the provider's hook integration and fails at once with
provider-integration-not-installed when it is missing. attention also returns (timedOut
false) once the job has ended: check job.state.
Several jobs: agent wait A B C --any --until completed returns as soon as one is completed,
--all once all are; the reply adds "jobs" (every snapshot, in the order given).
A job stopped at its provider's usage limit is parked (job.state "parked", job.parkedUntil):
not completed; mytty continues it after the reset and the wait goes on through the park.
--return-on-park returns at once instead (a parked job counts as satisfying --until).""",
    doc=f"""
Blocks until the job meets the condition or the timeout passes (default
{int(DEFAULT_TIMEOUT_S)} s; from 0 to {int(MAX_WAIT_S)}, a week, else `invalid-request`).

| `--until` | satisfied by |
|---|---|
| `running` | any state except `queued` and `launching` (including `launch-failed` and `lost`, so the wait ends) |
| `attention` | `waiting-input`, `waiting-approval`, or a terminal state (see below) |
| `completed` | a terminal state |

**Difference from the original**: `--until attention` also returns, with `"timedOut": false`,
when the job is terminal (`succeeded`, `failed`, `disconnected`, `launch-failed`, `lost`): an
ended job can no longer need attention without a follow-up, so waiting on would only run into
the timeout. Read `job.state` to tell the two apart.

**Several jobs** (a mytty addition): `agent wait A B C --any --until completed` returns as
soon as one of the jobs satisfies `--until`, `--all` once every one does (each is checked
against the condition on its own; a job that already satisfies it counts at once). One wait
is registered on each job's pane, so only changes of those panes wake it. Several jobs need
`--any` or `--all` (`usage` otherwise); at most 256, and an unknown one is `job-not-found`
before waiting. The request carries them as `"jobIDs"` (with `"jobID"` the first one) and
`"match":"any"|"all"`; the reply adds `"jobs"`, every job's snapshot in the order given, and
its `"job"` is the job that decided it: for `--any` the first in that order that satisfies,
for `--all` the last in that order (on a timeout, the first that does not satisfy).

**Usage limits** (a mytty addition): a job whose worker stopped at its provider account's usage
limit is `parked` (`job.parkedUntil`: the provider's reset, `job.resumesAt`: when mytty goes on),
which satisfies neither `completed` nor `attention`: mytty continues the job on its own
conversation after the reset, and the wait goes on through the park to the job's real end
(its `--timeout-seconds` still applies). `--return-on-park` returns at once instead, with
`"timedOut": false` and the parked snapshot, once the provider's record of the limit was
read (its `parkedUntil`: the hook that says "limit" comes a moment before the transcript or
rollout row with the reset; within 3 s mytty takes it that there is none): a parked job counts
as satisfying `--until` (with `--any`/`--all`, each parked job counts so).

`--until attention` fails at once with `provider-integration-not-installed` when the job's
provider has no hook integration. Cursor never reports input requests; its approval requests
are estimated about 10 s after a tool call stalls.

Request `{{"type":"waitAgent","jobID":{{"rawValue":"<UUID>"}},"until":"completed","timeoutSeconds":900}}`.
Reply `{{"job":{{…snapshot…}},"timedOut":false,"type":"agentWaitResult"}}`.
Several jobs: request `{{"type":"waitAgent","jobID":{{"rawValue":"A"}},"jobIDs":[{{"rawValue":"A"}},{{"rawValue":"B"}}],"match":"any","until":"completed","timeoutSeconds":900}}`,
reply `{{"job":{{…}},"jobs":[{{…}},{{…}}],"timedOut":false,"type":"agentWaitResult"}}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_id", "job_ids", "match", "return_on_park", "timeout_s", "until")

    def __init__(
        self,
        job_id: str,
        until: str,
        timeout_s: float,
        job_ids: list[str] | None = None,
        match: str | None = None,
        return_on_park: bool = False,
    ) -> None:
        self.job_id = job_id
        self.until = until
        self.timeout_s = timeout_s
        #: Several jobs (None: the original's one-job wait and reply).
        self.job_ids = job_ids
        self.match = match
        self.return_on_park = return_on_park


def parse(request: Request) -> Params:
    job_ids = request.jobs(JOBS)
    match = request.choice(MATCH) if job_ids is not None else None
    job_id = request.job(JOB_ARG) if request.has(JOB_ARG) or job_ids is None else job_ids[0]
    return Params(
        job_id,
        request.choice(UNTIL),
        request.seconds(TIMEOUT),
        job_ids,
        match,
        request.flag(RETURN_ON_PARK),
    )


async def handle(ctx: AgentWaitContext, params: Params) -> AgentWaitResultReply:
    from mytty.core.jobs import tracker as core_jobs
    from mytty.core.vocab import ATTENTION
    from mytty.protocol import wire

    until = cast("JobWaitCondition", params.until)  # parse() checked it is one of them

    def met(job: AgentJob) -> bool:
        if params.return_on_park and job.state is core_jobs.AgentJobState.PARKED:
            # Once what the provider said is read (the hook comes a moment before the
            # record that has the reset), so the reply carries the real parkedUntil.
            return job.park is None or job.park.settled
        return core_jobs.satisfies(job, until)

    if params.job_ids is None:
        job = ctx.jobs.current(params.job_id)
        if params.until == ATTENTION:
            await ctx.job_attention_preflight(job)

        def probe() -> AgentJob | None:
            current = ctx.jobs.current(job.job_id)
            return current if met(current) else None

        found, timed_out = await ctx.hub.wait_until(
            probe, params.timeout_s, surface_id=job.surface_id
        )
        final = found if found is not None else ctx.jobs.current(job.job_id)
        return wire.agent_wait_result(ctx.jobs.snapshot(final), timed_out)

    jobs = [ctx.jobs.current(i) for i in params.job_ids]  # job-not-found before waiting
    # A job named twice (or by its id and a prefix of it) counts once.
    jobs = list({j.job_id: j for j in jobs}.values())
    ids = [j.job_id for j in jobs]
    if params.until == ATTENTION:
        for job in jobs:
            await ctx.job_attention_preflight(job)
    want_all = params.match == ALL

    def decided(now: list[AgentJob]) -> AgentJob | None:
        done = [j for j in now if met(j)]
        if want_all:
            return done[-1] if len(done) == len(now) else None
        return done[0] if done else None

    latest: list[list[AgentJob]] = [jobs]

    def probe_many() -> AgentJob | None:
        latest[0] = [ctx.jobs.current(i) for i in ids]
        return decided(latest[0])

    found_job, timed_out = await ctx.hub.wait_until(
        probe_many, params.timeout_s, surface_ids=[j.surface_id for j in jobs]
    )
    now = latest[0]
    if found_job is None:
        found_job = next((j for j in now if not met(j)), now[0])
    return wire.agent_wait_many_result(
        ctx.jobs.snapshot(found_job), [ctx.jobs.snapshot(j) for j in now], timed_out
    )
