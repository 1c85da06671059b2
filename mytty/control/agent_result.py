"""``agentResult``: the job's state, its pane's current screen (empty for a lost job), and the
worker's last answer.

``lastAssistantMessage`` is an addition to the original's reply: the final assistant message the
bound run's Stop hook reported (Claude Code and Codex send ``last_assistant_message``), clipped
by the hook to fit an event; null until the run has finished a turn or when the provider sends
none (Cursor, OpenCode, Antigravity).
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import JobStore, PaneDirectory, RunWaiter, TmuxAccess
from mytty.control.read import read_content
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.jobs import AgentJobState
from mytty.protocol import wire
from mytty.protocol.replies import AgentResultReply

TYPE = "agentResult"
ERRORS = frozenset({ErrorCode.JOB_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST})


class AgentResultContext(JobStore, PaneDirectory, TmuxAccess, RunWaiter, Protocol):
    """What ``agent_result`` uses of the controller."""


async def handle(ctx: AgentResultContext, params: Params) -> AgentResultReply:
    job = ctx.jobs.current(params.raw_id("jobID"))
    pane = ctx.panes.by_surface.get(job.surface_id)
    content = wire.pane_content(job.surface_id, "", None, None)
    if pane is not None and job.state is not AgentJobState.LOST:
        try:
            content = await read_content(ctx, pane, job.surface_id)
        except MyttyError as exc:
            if exc.code is not ErrorCode.PANE_NOT_FOUND:
                raise
            job = ctx.jobs.current(job.job_id)
    run = ctx.hub.book.get(job.run_id) if job.run_id is not None else None
    last_answer = run.last_assistant_message if run is not None else None
    return wire.agent_result(ctx.jobs.snapshot(job), content, last_answer)
