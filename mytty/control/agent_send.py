"""``sendAgent``: a follow-up to the job's pane; a finished job is re-armed first.

Re-arming (new baseline, unbound, ``launching``, a fresh 30 s window) makes the next
``agent wait`` track the run this follow-up starts, not the one that already ended.
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import JobStore, PaneDirectory, PaneView, TmuxAccess
from mytty.control.send import deliver
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.jobs import AgentJob
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "sendAgent"
ERRORS = frozenset(
    {
        ErrorCode.JOB_NOT_FOUND,
        ErrorCode.JOB_LOST,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)


def job_pane(ctx: PaneDirectory, job: AgentJob) -> PaneView:
    pane = ctx.panes.by_surface.get(job.surface_id)
    if pane is None:
        raise MyttyError(ErrorCode.JOB_LOST, f"the pane of job {job.job_id} is gone")
    return pane


class AgentSendContext(JobStore, PaneDirectory, TmuxAccess, Protocol):
    """What ``agent_send`` uses of the controller."""


async def handle(ctx: AgentSendContext, params: Params) -> OkReply:
    job_id = params.raw_id("jobID")
    text = params.str("text")
    press_enter = params.bool("pressEnter", False)
    job = ctx.jobs.current(job_id)
    pane = job_pane(ctx, job)
    ctx.jobs.re_arm(job_id)
    try:
        await deliver(ctx, pane, text, press_enter)
    except MyttyError as exc:
        if exc.code is ErrorCode.PANE_NOT_FOUND:
            raise MyttyError(ErrorCode.JOB_LOST, f"the pane of job {job_id} is gone") from None
        raise
    return wire.ok()
