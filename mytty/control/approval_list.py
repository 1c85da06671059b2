"""``listApprovals``: the open permission requests the caller may answer or see.

A person (any caller with no agent in its process ancestry) sees every open request; a
process under an agent sees those of the workers spawned from its pane (with their
``approver``: only ``lead`` ones are its to answer). Oldest first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import ApprovalAccess
    from mytty.protocol.replies import ApprovalsReply

    class ApprovalListContext(ApprovalAccess, Protocol):
        """What ``approval_list`` uses of the controller."""


COMMAND = Command(
    name="approval list",
    wire="listApprovals",
    summary="the open permission requests of your workers (or every one, for a person)",
    errors=(codes.INVALID_REQUEST,),
    guide="""\
approval list
The open permission requests (Claude Code and Codex PermissionRequest) of the workers you
spawned, oldest first: {"type":"approvals","approvals":[{"id", "paneID", "jobID", "label",
"provider", "tool", "action", "command", "paths", "approver", "state", "requestedAt",
"holdUntil", "holdLeftSeconds", ...}]}. "action" is the command (or file) the worker asks to run.
You may answer only those with "approver": "lead" (spawned with agent spawn --approver lead):
approval answer ID allow|deny [--message TEXT]. Never your own pane's requests.""",
    doc="""
Request `{"type":"listApprovals"}`. Reply
`{"type":"approvals","approvals":[ENTRY…]}`, oldest first, where each ENTRY is one
permission request (see [approvals](approvals.md#the-request-object)):
`{"id","paneID","location","jobID","label","runID","provider","tool","action","command","paths","diff","description","cwd","truncated","approver","state","requestedAt","holdUntil","ageSeconds","holdLeftSeconds","decision","message","decidedBy","session","decidedAt","latencyMs","deliveredBy","rule"}`.

Which requests: for a person (a caller with no agent among its ancestors) every open one; for
a process under an agent (a lead), the open requests of the workers spawned from its pane,
whatever their `approver`. `state` is `holding` (the agent's hook waits for an answer until
`holdUntil`) or `dialog` (the agent's own dialog decides; an answer is typed into it once
the screen shows it). `mytty approvals --json` prints the same objects.
""",
)


class Params:
    """The caller's process (SO_PEERCRED pid): who is asking decides what is listed."""

    __slots__ = ("peer_pid",)

    def __init__(self, peer_pid: int) -> None:
        self.peer_pid = peer_pid


def parse(request: Request) -> Params:
    return Params(request.peer_pid)


async def handle(ctx: ApprovalListContext, params: Params) -> ApprovalsReply:
    from mytty.protocol import wire

    desk = ctx.approvals
    caller = desk.caller(params.peer_pid)
    return wire.approvals_reply(desk.entry(r) for r in desk.visible(caller))
