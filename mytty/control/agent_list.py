"""``listAgents``: every job this controller knows, oldest first (an addition to the original).

Jobs live in the controller's memory, so the list starts empty after a restart. Shell
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
Every job, oldest first ({"type":"agentJobs","jobs":[...]}); after a controller restart the
list is empty.""",
    doc="""
Every job the controller knows, oldest first, each as a [job snapshot](#the-job-snapshot)
reconciled against the current runs (so a job whose pane is gone shows as `lost`). Jobs live
in memory: after a restart the list is empty. An addition to the original, which had no way to
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
