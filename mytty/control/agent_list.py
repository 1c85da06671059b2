"""``listAgents``: every job this controller knows, oldest first (an addition to the original).

Jobs are stored, so the list survives a restart (unfinished jobs and the newest finished
ones: ``mytty.daemon.jobs.FINISHED_JOBS_IN_MEMORY``). Shell
completion of job ids uses it (``mytty-ctl completion``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import JobStore
    from mytty.protocol.replies import AgentJobsReply

    class AgentListContext(JobStore, Protocol):
        """What ``agent_list`` uses of the controller."""


COMMAND = Command(
    name="agent list",
    wire="listAgents",
    summary="every job this controller knows, oldest first",
    errors=(codes.INVALID_REQUEST,),
    guide="""\
Every job, oldest first ({"type":"agentJobs","jobs":[...]}); jobs survive a controller restart.
Only the newest 500 finished jobs are listed (an older one still answers by its id).""",
    doc="""
Every job the controller knows, oldest first, each as a [job snapshot](#the-job-snapshot)
reconciled against the current runs (so a job whose pane is gone shows as `lost`). Jobs are
stored and survive a controller restart; the list holds every unfinished job and the newest
500 finished ones (an older finished job still answers `agent wait`/`result` by its id). An
addition to the original, which had no way to
list jobs.

Request `{"type":"listAgents"}`. Reply `{"jobs":[{…snapshot…}],"type":"agentJobs"}`.
""",
)


class Params:
    """This request has no fields."""

    __slots__ = ()


def parse(request: Request) -> Params:
    return Params()


async def handle(ctx: AgentListContext, params: Params) -> AgentJobsReply:
    from mytty.protocol import wire

    return wire.agent_jobs_reply(ctx.jobs.snapshot(ctx.jobs.current(i)) for i in ctx.jobs.ids())
