"""``resumeJobs``: restart the workers whose panes were lost, each on its own conversation.

The work is the controller's (:mod:`mytty.daemon.jobs.resume`); ``mytty resume`` is the human's
front end to it (it first brings up a tmux server when the old one is gone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB, JOB_LIST, Arg, Command, Field, Option, Values
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import JobResumer
    from mytty.protocol.replies import ResumeReply

    class AgentResumeContext(JobResumer, Protocol):
        """What ``agent_resume`` uses of the controller."""


#: Creating panes and starting agents takes a moment per job.
RECEIVE_TIMEOUT_S = 120.0
#: How many jobs one request may name.
MAX_JOBS = 256


#: Only these jobs (``_client`` fills it from the JOB words).
JOBS = Field("jobIDs", "only these jobs (absent: every lost job)", kind=JOB_LIST, maximum=MAX_JOBS)
DRY_RUN = Option("--dry-run", None, "dryRun", "print the plan, change nothing")


def _client(request: dict[str, object], values: Values) -> None:
    if len(values.positionals) > MAX_JOBS:
        values.fail(codes.USAGE, f"at most {MAX_JOBS} jobs at once")
    if values.positionals:
        request[JOBS.key] = [{"rawValue": job} for job in values.positionals]
    return None


COMMAND = Command(
    name="agent resume",
    wire="resumeJobs",
    summary="restart lost workers on their own conversations (after tmux died or a reboot)",
    heading="agent resume [--dry-run] [JOB…]",
    args=(
        Arg(
            "JOB",
            None,
            "only these jobs (default: every lost job not closed with agent close)",
            kind=JOB,
            optional=True,
            variadic=True,
        ),
    ),
    options=(DRY_RUN,),
    wire_fields=(JOBS,),
    wire_order=("jobIDs", "dryRun"),
    client=_client,
    receive_timeout=RECEIVE_TIMEOUT_S,
    errors=(codes.JOB_NOT_FOUND, codes.TMUX_UNAVAILABLE, codes.INVALID_REQUEST),
    client_errors=(codes.USAGE,),
    guide="""\
agent resume [--dry-run] [JOB…]
After the tmux server died (or the machine rebooted), restarts each lost worker in a new
pane in its own directory, on its own conversation (claude --resume <id>, codex resume
<id>; never --continue), with its launch flags and a short "continue" prompt. The job keeps
its id and follows the new pane. --dry-run prints the plan. Humans run `mytty resume`.""",
    doc="""
A mytty addition (the original kept no jobs across a restart). Which jobs: without JOB
arguments, every job that is `lost` (its pane vanished before it finished: a killed tmux
server, a reboot), except those closed with `agent close`; with JOB arguments, exactly those
(an unknown one is `job-not-found` and nothing is resumed). A job is resumed only when mytty
knows its exact conversation (`sessionID`: the `--session-id` mytty gave a Claude worker, or
the session a Codex or Cursor worker's events reported), has its launch record (jobs spawned by
this version) and its directory still exists; otherwise its entry says why in `skipped`.

Each resumed worker opens in a new window `workers` of the `mytty` session, in its recorded
directory (its worktree, for `--worktree` jobs), as `command <binary> [model flag] <mode flags>
--resume <sessionID> -- '<prompt>'` (Codex: `codex --no-daemon [-m M] <mode flags> resume
<sessionID> -- '<prompt>'`), the same model and mode flags as its spawn; the prompt tells it
that its pane was lost and to continue where it stopped. Never `--continue` or `resume
--last`, which pick whichever conversation was used last. The job keeps its id, label and
session, moves to the new pane and is `launching` again (a fresh 30 s window) until its
conversation's next run starts; its snapshot gains `"resumed": N` (how many times it was
resumed), and `events` shows an `idle` record of the new pane with hookName `mytty.resume`
(synthesized). One resumption runs at a time; a second request finds the jobs launching and
skips them. With `--dry-run` nothing changes: no pane, no process, no job update.

Request `{"type":"resumeJobs","jobIDs"?:[{"rawValue":"<UUID>"}],"dryRun"?:true}`.
Reply `{"type":"resume","dryRun":false,"jobs":[{"jobID":{"rawValue":"…"},"provider":"claude",
"label"?:"…","state":"launching","sessionID":"…","cwd":"/abs/dir","argv":["claude",…],
"resumed":true,"paneID"?:{"rawValue":"…"},"skipped"?:"why"}]}` (`argv` is null for a skipped
job; `state` is the job's state after the request).
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("dry_run", "job_ids")

    def __init__(self, job_ids: list[str] | None, dry_run: bool) -> None:
        self.job_ids = job_ids
        self.dry_run = dry_run


def parse(request: Request) -> Params:
    return Params(request.jobs(JOBS), request.flag(DRY_RUN))


async def handle(ctx: AgentResumeContext, params: Params) -> ResumeReply:
    return await ctx.resume_jobs(params.job_ids, dry_run=params.dry_run)
