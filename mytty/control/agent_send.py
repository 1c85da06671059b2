"""``sendAgent``: a follow-up to the job's pane; a finished job is re-armed first.

Re-arming (new baseline, unbound, ``launching``, a fresh 30 s window) makes the next
``agent wait`` track the run this follow-up starts, not the one that already ended.

A parked job (stopped at its usage limit) holds the text instead (``{"queued": true}``): it is
delivered, in order with other held sends, once the job went on (mytty.daemon.limits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import ENTER, JOB_ARG, Arg, Command
from mytty.core import codes
from mytty.core.vocab import QUEUED

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import JobStore, PaneDirectory, PaneView, TmuxAccess, UsageLimits
    from mytty.core.jobs.tracker import AgentJob
    from mytty.protocol.replies import OkReply, QueuedReply

    class AgentSendContext(JobStore, PaneDirectory, TmuxAccess, UsageLimits, Protocol):
        """What ``agent_send`` uses of the controller."""


TEXT = Arg("TEXT", "text", "the follow-up, typed literally")

COMMAND = Command(
    name="agent send",
    wire="sendAgent",
    summary="type a follow-up into the worker (a finished job is re-armed)",
    args=(JOB_ARG, TEXT),
    options=(ENTER,),
    errors=(
        codes.JOB_NOT_FOUND,
        codes.JOB_LOST,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE, codes.REQUEST_TOO_LARGE),
    guide="""\
Types into the worker. If the job had finished, it is re-armed so the next agent wait
follows the run this follow-up starts. A parked job (usage limit) holds the text instead
({"type":"ok","queued":true}) and gets it, in order, once it went on after the reset. A queued
job (its worker not started) is invalid-request.""",
    doc="""
Like [`send`](#send-pane-text---enter) to the job's pane, after re-arming a finished job, or
noting the follow-up of a job whose run is still running, which the job then follows to its end
(see above). To answer an approval dialog use `send-key` on `job.paneID.rawValue` instead: typed
text does not choose a dialog option. `job-lost`: the job's pane is gone.

**A parked job** (a mytty addition: its worker stopped at its usage limit) is not typed into: the
text is held with the job (stored, so a restart keeps it) and the reply says
`{"type":"ok","queued":true}`. Once mytty (or the agent itself) continued the job after the
reset and that turn ended, the held texts are delivered one by one, in the order they came, each
as a follow-up once the turn before it ended; the job stays unfinished until the last one's
turn ends, so the lead's `agent wait` returns once, with the final answer. While held texts
wait, later sends are held behind them. The snapshot counts them (`heldSends`).

Request `{"type":"sendAgent","jobID":{"rawValue":"<UUID>"},"text":"Also add a regression test.","pressEnter":true}`.
Reply `{"type":"ok"}` (held: `{"type":"ok","queued":true}`).
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_id", "press_enter", "text")

    def __init__(self, job_id: str, text: str, press_enter: bool) -> None:
        self.job_id = job_id
        self.text = text
        self.press_enter = press_enter


def parse(request: Request) -> Params:
    return Params(request.job(JOB_ARG), request.text(TEXT), request.flag(ENTER))


def job_pane(ctx: PaneDirectory, job: AgentJob) -> PaneView:
    from mytty.core.errors import ErrorCode, MyttyError

    pane = ctx.panes.by_surface.get(job.surface_id)
    if pane is None:
        raise MyttyError(ErrorCode.JOB_LOST, f"the pane of job {job.job_id} is gone")
    return pane


async def handle(ctx: AgentSendContext, params: Params) -> OkReply | QueuedReply:
    from mytty.control.send import deliver
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.protocol import wire

    job = ctx.jobs.current(params.job_id)
    pane = job_pane(ctx, job)
    if job.state.value == QUEUED:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST,
            f"job {job.job_id} is queued: its worker has not started yet, so there is "
            "nothing to type into (see queuedBecause; agent wait --until running waits for it)",
        )
    if ctx.hold_send(job.job_id, params.text, params.press_enter):
        return wire.queued()
    ctx.jobs.re_arm(job.job_id)
    try:
        await deliver(ctx, pane, params.text, params.press_enter)
    except MyttyError as exc:
        if exc.code is ErrorCode.PANE_NOT_FOUND:
            raise MyttyError(ErrorCode.JOB_LOST, f"the pane of job {job.job_id} is gone") from None
        raise
    return wire.ok()
