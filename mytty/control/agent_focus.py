"""``focusAgent``: focus the job's pane."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB_ARG, Command
from mytty.control.targets import JobParams as Params
from mytty.control.targets import parse_job as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import JobStore, PaneDirectory, TmuxAccess
    from mytty.protocol.replies import OkReply

    class AgentFocusContext(JobStore, PaneDirectory, TmuxAccess, Protocol):
        """What ``agent_focus`` uses of the controller."""


COMMAND = Command(
    name="agent focus",
    wire="focusAgent",
    summary="bring the worker's pane to the front",
    args=(JOB_ARG,),
    errors=(
        codes.JOB_NOT_FOUND,
        codes.JOB_LOST,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    doc="""
Like [`focus`](#focus-pane) on the job's pane (`job-lost` when it is gone).
Request `{"type":"focusAgent","jobID":{"rawValue":"<UUID>"}}`, reply `{"type":"ok"}`.
""",
)


async def handle(ctx: AgentFocusContext, params: Params) -> OkReply:
    from mytty.control.agent_send import job_pane
    from mytty.control.focus import focus_pane
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.protocol import wire

    job = ctx.jobs.current(params.job_id)
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
