"""``listAgents``: the jobs this controller knows, oldest first (an addition to the original).

Jobs are stored, so the list survives a restart (unfinished jobs and the newest finished
ones: ``mytty.daemon.jobs.registry.FINISHED_JOBS_IN_MEMORY``). By default a caller in a mytty pane sees
the jobs it leads (so a lead that lost its context recovers its own workers); ``--all`` lists
every lead's. Shell completion of job ids uses it (``mytty-ctl completion``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import LIST, Command, Option, Values
from mytty.core import codes
from mytty.core.vocab import JOB_STATES  # plain strings: --state is checked without the tracker

if TYPE_CHECKING:
    from decimal import Decimal

    from mytty.control.base import Request
    from mytty.control.ports import JobStore, PaneFacts
    from mytty.protocol.replies import AgentJobsReply

    class AgentListContext(JobStore, PaneFacts, Protocol):
        """What ``agent_list`` uses of the controller."""


STATES = Option(
    "--state",
    "LIST",
    "states",
    "only jobs in these states (comma-separated, e.g. running,waiting-approval)",
    kind=LIST,
)
LABEL = Option("--label", "L", "label", "only jobs with this label")
ALL_LEADS = Option("--all", None, "allLeads", "every lead's jobs, not only yours")


def _client(request: dict[str, object], values: Values) -> None:
    states = request.get(STATES.key)
    if isinstance(states, list):
        for state in states:
            if state not in JOB_STATES:
                values.fail(codes.USAGE, f"--state: unknown job state {state!r}")
    return None


COMMAND = Command(
    name="agent list",
    wire="listAgents",
    summary="the jobs you lead (or every job: --all), oldest first",
    options=(STATES, LABEL, ALL_LEADS),
    client=_client,
    errors=(codes.INVALID_REQUEST,),
    client_errors=(codes.USAGE,),
    guide="""\
Your jobs, oldest first ({"type":"agentJobs","jobs":[...]}): the jobs spawned from your pane.
Lost track after a context compaction? agent list shows every worker you started, with its
state, label and key; jobs survive a controller restart. --state running,waiting-approval
and --label L filter; --all lists every lead's jobs. Only the newest 500 finished jobs are
listed (an older one still answers by its id).""",
    doc="""
The jobs the controller knows, oldest first, each as a [job snapshot](#the-job-snapshot)
reconciled against the current runs (so a job whose pane is gone shows as `lost`). Jobs are
stored and survive a controller restart; the list holds every unfinished job and the newest
500 finished ones (an older finished job still answers `agent wait`/`result` by its id). An
addition to the original, which had no way to list jobs.

**Whose jobs**: called from a mytty pane (found from the caller's process ancestry), the list
holds the jobs that pane leads — the jobs spawned from it (see `--key` under
[`agent spawn`](#agent-spawn) for how the lead is found). Called from outside every mytty pane
(a terminal of your own, a script), it holds every job. `--all` lists every job from
anywhere. `--state` (comma-separated job states; an unknown one is a `usage` error) and
`--label` (exact match) narrow it further.

Request `{"type":"listAgents","states":["running"],"label"?:"scan-a","allLeads":false}` (all
fields optional). Reply `{"jobs":[{…snapshot…}],"type":"agentJobs"}`.

**Resources and cost** (mytty additions). Each snapshot of a job whose pane exists has
`"rssBytes"` (resident memory of the pane's process tree: its shell and the agent below it)
and `"cpuPercent"` (a rolling percentage of one core over the last few seconds; null on the
first read after a quiet spell, when only one sample exists). They are sampled at most once a
second and only while someone reads them, so `agent list` costs nothing when nobody asks.
Snapshots with `usage` have `"costUsd"`; the reply adds `"costUsd"`, the listed jobs' costs
added up (null when one of them is unknown), and, when the list is one lead's,
`"lead":{"paneID","ownCostUsd","workersCostUsd","costUsd"}`: the lead agent's own cost (its
pane's, counted since the controller started, or its own job's when it was spawned itself),
its workers' (every job it spawned that is listed in memory), and the two added up.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("all_leads", "label", "peer_pid", "states")

    def __init__(
        self, peer_pid: int, states: frozenset[str], label: str | None, all_leads: bool
    ) -> None:
        self.peer_pid = peer_pid
        self.states = states
        self.label = label
        self.all_leads = all_leads


def parse(request: Request) -> Params:
    from mytty.core.errors import ErrorCode, MyttyError

    states = frozenset(request.items(STATES))
    unknown = sorted(states - frozenset(JOB_STATES))
    if unknown:
        raise MyttyError(ErrorCode.INVALID_REQUEST, f"unknown job state {unknown[0]!r}")
    return Params(request.peer_pid, states, request.optional_text(LABEL), request.flag(ALL_LEADS))


async def handle(ctx: AgentListContext, params: Params) -> AgentJobsReply:
    from mytty.core.cost.pricing import total
    from mytty.protocol import wire
    from mytty.protocol.replies import CostPart

    lead = None if params.all_leads else ctx.caller_surface(params.peer_pid)
    await ctx.jobs.refresh_resources()  # rssBytes / cpuPercent at most a second old
    jobs = [ctx.jobs.current(i) for i in ctx.jobs.ids()]
    snapshots = [
        ctx.jobs.snapshot(job)
        for job in jobs
        if (lead is None or job.lead == lead)
        and (not params.states or job.state.value in params.states)
        and (params.label is None or job.label == params.label)
    ]
    costs = [s["costUsd"] for s in snapshots if "costUsd" in s]
    summed = total(None if c is None else _exact(c) for c in costs) if costs else None
    cost: CostPart = {"costUsd": float(summed) if summed is not None else None} if costs else {}
    lead_cost = None
    if lead is not None:
        own, workers, both = ctx.jobs.lead_cost(lead)
        lead_cost = wire.lead_cost(lead, own, workers, both)
    return wire.agent_jobs_reply(snapshots, cost_usd=cost, lead=lead_cost)


def _exact(dollars: float) -> Decimal:
    from decimal import Decimal

    return Decimal(repr(dollars))
