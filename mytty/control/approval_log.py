"""``approvalLog``: every permission request and its outcome, newest first (the audit).

Each request is stored as it happens and again at each change (held, decided, expired), so
the log outlives restarts: when it was asked, the pane and job, the tool and the action, the
decision, who decided (``rule:<name>``, ``human:tty``, ``human:popup``, ``human:web``,
``lead:<job id>``, ``agent-dialog``) and the latency.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import SECONDS, Command, Option
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import ApprovalAccess
    from mytty.protocol.replies import ApprovalLogReply

    class ApprovalLogContext(ApprovalAccess, Protocol):
        """What ``approval_log`` uses of the controller."""


#: The longest look back: ten years.
MAX_SINCE_S = 10 * 365 * 86400.0

SINCE = Option(
    "--since-seconds",
    "N",
    "sinceSeconds",
    "only requests made in the last N seconds (default: all, at most 1000)",
    kind=SECONDS,
    maximum=MAX_SINCE_S,
)

COMMAND = Command(
    name="approval log",
    wire="approvalLog",
    summary="every permission request and how it ended, newest first",
    options=(SINCE,),
    errors=(codes.INVALID_REQUEST, codes.INTERNAL_ERROR),
    doc="""
Request `{"type":"approvalLog","sinceSeconds"?:N}`. Reply
`{"type":"approvalLog","entries":[ENTRY…]}`: the requests made in the last `N` seconds
(default: all), newest first, at most 1000, each as in [`approval list`](#approval-list)
with its outcome: `state` (`decided`, `expired`, or still `holding`/`dialog`), `decision`,
`message`, `decidedBy` (`rule:<name>`, `human:tty`, `human:popup`, `human:web`,
`lead:<job id>`, `agent-dialog`), `session`, `decidedAt`, `latencyMs`, `deliveredBy`
(`rule`, `hook`, `dialog`, `pane`). A person sees every request, a process under an agent
those of the workers spawned from its pane. `mytty approvals log --json` prints `entries`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("peer_pid", "since")

    def __init__(self, since: float | None, peer_pid: int) -> None:
        self.since = since
        self.peer_pid = peer_pid


def parse(request: Request) -> Params:
    since = request.seconds(SINCE) if request.has(SINCE) else None
    return Params(since, request.peer_pid)


async def handle(ctx: ApprovalLogContext, params: Params) -> ApprovalLogReply:
    from mytty.protocol import wire

    desk = ctx.approvals
    entries = await desk.log(params.since, desk.caller(params.peer_pid))
    return wire.approval_log_reply(desk.entry(r) for r in entries)
