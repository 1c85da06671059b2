"""``closeAgent``: close the job's pane (worktrees are never removed).

A job that had not finished becomes ``lost``; a finished one keeps its final state.
Always answers ``ok`` for a known job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB_ARG, Command
from mytty.control.spec import JobParams as Params
from mytty.control.spec import parse_job as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import JobStore, PaneDirectory, PaneFactory
    from mytty.protocol.replies import OkReply

    class AgentCloseContext(JobStore, PaneDirectory, PaneFactory, Protocol):
        """What ``agent_close`` uses of the controller."""


COMMAND = Command(
    name="agent close",
    wire="closeAgent",
    summary="close the worker's pane (an unfinished job becomes lost)",
    args=(JOB_ARG,),
    errors=(codes.JOB_NOT_FOUND, codes.INVALID_REQUEST),
    guide="""\
Close the worker's pane (a job that had not finished becomes lost; a finished job keeps its
final state). Jobs are stored: after a controller restart every job id still answers, with
its state (a job whose pane went meanwhile is lost).""",
    doc="""
Closes the job's pane if it still exists and answers `ok` for any known job. An unfinished job
becomes `lost`; a finished one keeps its state. Worktrees are left alone.
Request `{"type":"closeAgent","jobID":{"rawValue":"<UUID>"}}`, reply `{"type":"ok"}`.

mytty has no `park` commands (the original's "done tab"): close the pane after reading the
result.
""",
)


async def handle(ctx: AgentCloseContext, params: Params) -> OkReply:
    from mytty.core.errors import MyttyError
    from mytty.protocol import wire

    job = ctx.jobs.current(params.job_id)
    pane = ctx.panes.by_surface.get(job.surface_id)
    if pane is not None:
        try:
            await ctx.close_pane(pane)
        except MyttyError:
            pass  # already gone: the job is lost either way
    ctx.jobs.current(params.job_id)
    return wire.ok()
