"""``waitAgent``: block until the job's own run is running, needs attention, or is completed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from mytty.control.spec import JOB_ARG, Command, Option, timeout_option
from mytty.core import codes, vocab
from mytty.core.vocab import JOB_WAIT_CONDITIONS
from mytty.protocol.limits import MAX_WAIT_S

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import AgentChecks, JobStore, RunWaiter
    from mytty.core.jobs import AgentJob
    from mytty.core.vocab import JobWaitCondition
    from mytty.protocol.replies import AgentWaitResultReply

    class AgentWaitContext(JobStore, RunWaiter, AgentChecks, Protocol):
        """What ``agent_wait`` uses of the controller."""


DEFAULT_TIMEOUT_S = vocab.DEFAULT_WAIT_TIMEOUT_S

COMMAND = Command(
    name="agent wait",
    wire="waitAgent",
    summary="wait for the run this job started (running, attention, completed)",
    args=(JOB_ARG,),
    options=(
        Option(
            "--until",
            "CONDITION",
            "until",
            "running: the run started; attention: it waits for input or approval; "
            "completed: it ended",
            choices=JOB_WAIT_CONDITIONS,
            required=True,
        ),
        timeout_option(DEFAULT_TIMEOUT_S, MAX_WAIT_S),
    ),
    wait_key="timeoutSeconds",
    errors=(
        codes.JOB_NOT_FOUND,
        codes.PROVIDER_INTEGRATION_NOT_INSTALLED,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE,),
    guide=f"""\
Waits for the run this job started (never an older run). Default timeout {int(DEFAULT_TIMEOUT_S)} s.
completed = succeeded, failed, disconnected, launch-failed or lost. A worker that never
reports a run becomes launch-failed within 30 s (its message says why; a provider CLI
missing from PATH fails the spawn at once with provider-binary-not-found). Runs are reported by the provider's hook
integration, so check `mytty-ctl integration list` first: without hooks a job can only
end launch-failed (native run estimation is not in this version). attention (waiting for
input or approval) needs the provider's hook integration and fails at once with
provider-integration-not-installed when it is missing.""",
    doc=f"""
Blocks until the job meets the condition or the timeout passes (default
{int(DEFAULT_TIMEOUT_S)} s; negative counts as 0, more than a week as a week).

| `--until` | satisfied by |
|---|---|
| `running` | any state except `launching` (including `launch-failed` and `lost`, so the wait ends) |
| `attention` | `waiting-input`, `waiting-approval` |
| `completed` | a terminal state |

`--until attention` fails at once with `provider-integration-not-installed` when the job's
provider has no hook integration. Cursor never reports input requests; its approval requests
are estimated about 10 s after a tool call stalls.

Request `{{"type":"waitAgent","jobID":{{"rawValue":"<UUID>"}},"until":"completed","timeoutSeconds":900}}`.
Reply `{{"job":{{…snapshot…}},"timedOut":false,"type":"agentWaitResult"}}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_id", "until", "timeout_s")

    def __init__(self, job_id: str, until: str, timeout_s: float) -> None:
        self.job_id = job_id
        self.until = until
        self.timeout_s = timeout_s


def parse(request: Request) -> Params:
    return Params(
        request.raw_id("jobID"),
        request.choice("until", JOB_WAIT_CONDITIONS, None),
        request.seconds("timeoutSeconds", DEFAULT_TIMEOUT_S, MAX_WAIT_S),
    )


async def handle(ctx: AgentWaitContext, params: Params) -> AgentWaitResultReply:
    from mytty.core import jobs as core_jobs
    from mytty.core.vocab import ATTENTION
    from mytty.protocol import wire

    job = ctx.jobs.current(params.job_id)
    if params.until == ATTENTION:
        await ctx.job_attention_preflight(job)

    until = cast("JobWaitCondition", params.until)  # parse() checked it is one of them

    def probe() -> AgentJob | None:
        current = ctx.jobs.current(params.job_id)
        return current if core_jobs.satisfies(current, until) else None

    found, timed_out = await ctx.hub.wait_until(probe, params.timeout_s, surface_id=job.surface_id)
    final = found if found is not None else ctx.jobs.current(params.job_id)
    return wire.agent_wait_result(ctx.jobs.snapshot(final), timed_out)
