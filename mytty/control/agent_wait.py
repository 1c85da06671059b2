"""``waitAgent``: block until the job's own run is running, needs attention, or is completed."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import AgentChecks, JobStore, RunWaiter
from mytty.core import jobs as core_jobs
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.jobs import AgentJob
from mytty.protocol import wire
from mytty.protocol.replies import AgentWaitResultReply

TYPE = "waitAgent"
ERRORS = frozenset(
    {
        ErrorCode.JOB_NOT_FOUND,
        ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED,
        ErrorCode.INVALID_REQUEST,
    }
)
DEFAULT_TIMEOUT_S = 120.0
CONDITIONS = ("running", "attention", "completed")
_CONDITIONS: dict[str, core_jobs.WaitCondition] = {
    "running": "running",
    "attention": "attention",
    "completed": "completed",
}


class AgentWaitContext(JobStore, RunWaiter, AgentChecks, Protocol):
    """What ``agent_wait`` uses of the controller."""


async def handle(ctx: AgentWaitContext, params: Params) -> AgentWaitResultReply:
    job_id = params.raw_id("jobID")
    until = _CONDITIONS.get(params.str("until"))
    if until is None:
        raise MyttyError(ErrorCode.INVALID_REQUEST, "until must be running, attention or completed")
    timeout = max(0.0, params.number("timeoutSeconds", DEFAULT_TIMEOUT_S))
    job = ctx.jobs.current(job_id)
    if until == "attention":
        await ctx.job_attention_preflight(job)

    def probe() -> AgentJob | None:
        current = ctx.jobs.current(job_id)
        return current if core_jobs.satisfies(current, until) else None

    found, timed_out = await ctx.hub.wait_until(probe, timeout, surface_id=job.surface_id)
    final = found if found is not None else ctx.jobs.current(job_id)
    return wire.agent_wait_result(ctx.jobs.snapshot(final), timed_out)
