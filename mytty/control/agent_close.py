"""``closeAgent``: close the job's pane; with ``--remove-worktree``, also its worktree if safe.

A job that had not finished becomes ``lost``; a finished one keeps its final state.
Always answers ``ok`` for a known job. The worktree is removed only under the rules of
``mytty worktree gc`` (:mod:`mytty.core.worktree.safety`); the reply says what happened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB_ARG, Command, Option
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import JobStore, PaneDirectory, PaneFactory, Worktrees
    from mytty.protocol.replies import AgentCloseReply

    class AgentCloseContext(JobStore, PaneDirectory, PaneFactory, Worktrees, Protocol):
        """What ``agent_close`` uses of the controller."""


REMOVE_WORKTREE = Option(
    "--remove-worktree",
    None,
    "removeWorktree",
    "also remove the worktree mytty created for the job, if nothing would be lost",
)

COMMAND = Command(
    name="agent close",
    wire="closeAgent",
    summary="close the worker's pane (an unfinished job becomes lost)",
    args=(JOB_ARG,),
    options=(REMOVE_WORKTREE,),
    errors=(codes.JOB_NOT_FOUND, codes.INVALID_REQUEST),
    guide="""\
Close the worker's pane (a job that had not finished becomes lost; a finished job keeps its
final state; a queued job is cancelled). Jobs are stored: after a controller restart every job id still answers, with
its state (a job whose pane went meanwhile is lost).
--remove-worktree also removes the job's --worktree, only if mytty created it, it is clean,
its branch is merged (also squash/rebase) or pushed, and no process works in it; its tip is
kept as refs/mytty/archive/<branch>. The reply's "worktree" says what happened and why.""",
    doc="""
Closes the job's pane if it still exists and answers `ok` for any known job. An unfinished job
becomes `lost`; a finished one keeps its state. A `queued` job is cancelled so: its worker never
starts, and its message says `Cancelled while queued: …` (a mytty addition, as the queue is). Without `--remove-worktree` worktrees are left
alone. Request `{"type":"closeAgent","jobID":{"rawValue":"<UUID>"},"removeWorktree"?:true}`,
reply `{"type":"ok"}`.

**`--remove-worktree`** (an addition to the original): after the pane is closed (its processes
get up to 3 s to leave the directory), the worktree `agent spawn --worktree` created for this job
is removed under the same rules as `mytty worktree gc` (see
[worktrees](worktrees.md)): only a worktree mytty created (a reused or foreign
one is never touched), with no uncommitted or untracked changes, whose branch is merged into its
base (by ancestry, rebase, squash or tree comparison) or pushed, and in which no live process has
its current directory. Before removing, the tip is kept under `refs/mytty/archive/<branch>`; a
branch mytty created is then deleted. The reply gains
`"worktree":{"path","branch","removed","reason","detail","archiveRef","branchDeleted"}`, or
`"worktree":null` when mytty created no worktree for the job. A worktree that is kept is not an
error: `removed` is false and `reason` says why (`dirty`, `unmerged`, `in-use`, `locked`, …).

mytty has no `park` commands (the original's "done tab"): close the pane after reading the
result.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_id", "remove_worktree")

    def __init__(self, job_id: str, remove_worktree: bool) -> None:
        self.job_id = job_id
        self.remove_worktree = remove_worktree


def parse(request: Request) -> Params:
    return Params(request.job(JOB_ARG), request.flag(REMOVE_WORKTREE))


async def handle(ctx: AgentCloseContext, params: Params) -> AgentCloseReply:
    from mytty.core.errors import MyttyError

    job = ctx.jobs.current(params.job_id)
    pane = ctx.panes.by_surface.get(job.surface_id)
    if pane is not None:
        try:
            await ctx.close_pane(pane)
        except MyttyError:
            pass  # already gone: the job is lost either way
    ctx.jobs.current(job.job_id)
    ctx.jobs.mark_closed(job.job_id)  # closed on purpose: `mytty resume` leaves it
    if not params.remove_worktree:
        return {"type": "ok"}
    return {"type": "ok", "worktree": await ctx.remove_job_worktree(job.job_id)}
