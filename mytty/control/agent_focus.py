"""``focusAgent``: focus the job's pane."""

from __future__ import annotations

from typing import Protocol

from mytty.control.agent_send import job_pane
from mytty.control.base import Params
from mytty.control.focus import focus_pane
from mytty.control.ports import JobStore, PaneDirectory, TmuxAccess
from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "focusAgent"
ERRORS = frozenset(
    {
        ErrorCode.JOB_NOT_FOUND,
        ErrorCode.JOB_LOST,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)


class AgentFocusContext(JobStore, PaneDirectory, TmuxAccess, Protocol):
    """What ``agent_focus`` uses of the controller."""


async def handle(ctx: AgentFocusContext, params: Params) -> OkReply:
    job = ctx.jobs.current(params.raw_id("jobID"))
    pane = job_pane(ctx, job)
    try:
        await focus_pane(ctx, pane)
    except MyttyError as exc:
        if exc.code is ErrorCode.TMUX_UNAVAILABLE:
            raise
        raise MyttyError(
            ErrorCode.JOB_LOST, f"could not focus the job's pane: {exc.message}"
        ) from None
    return wire.ok()
