"""``closeAgent``: close the job's pane (worktrees are never removed).

A job that had not finished becomes ``lost``; a finished one keeps its final state.
Always answers ``ok`` for a known job.
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import JobStore, PaneDirectory, PaneFactory
from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "closeAgent"
ERRORS = frozenset({ErrorCode.JOB_NOT_FOUND, ErrorCode.INVALID_REQUEST})


class AgentCloseContext(JobStore, PaneDirectory, PaneFactory, Protocol):
    """What ``agent_close`` uses of the controller."""


async def handle(ctx: AgentCloseContext, params: Params) -> OkReply:
    job_id = params.raw_id("jobID")
    job = ctx.jobs.current(job_id)
    pane = ctx.panes.by_surface.get(job.surface_id)
    if pane is not None:
        try:
            await ctx.close_pane(pane)
        except MyttyError:
            pass  # already gone: the job is lost either way
    ctx.jobs.current(job_id)
    return wire.ok()
