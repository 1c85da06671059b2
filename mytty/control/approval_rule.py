"""``proposeApprovalRule``: the narrowest rule that would have allowed a request (no write).

``mytty approve ID --always`` shows it, asks, and then sends ``answerApproval`` with
``always``, which writes that same rule into config.toml and allows the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command, Field
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import ApprovalAccess
    from mytty.protocol.replies import ApprovalRuleReply

    class ApprovalRuleContext(ApprovalAccess, Protocol):
        """What ``approval_rule`` uses of the controller."""


ID = Field("id", "the request's id, or a unique prefix of it")

COMMAND = Command(
    name=None,
    wire="proposeApprovalRule",
    summary="the narrowest rule that would allow a request (used by `mytty approve --always`)",
    wire_fields=(ID,),
    errors=(
        codes.APPROVAL_NOT_FOUND,
        codes.APPROVAL_NOT_YOURS,
        codes.APPROVAL_RULE_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    doc="""
Request `{"type":"proposeApprovalRule","id":"<ID or prefix>"}`. Reply
`{"type":"approvalRule","rule":{"name","action","provider","tool","command"?,"path"?,"label"?},"toml":"[[approvals.rule]]\\n…","configFile":PATH}`:
the rule `answerApproval` with `always` would write (nothing is written here). Its command or
path is the request's own, escaped (`[*]`, `[?]`, `[[]`), so it has no wildcard and matches
that text only. A person only (`approval-not-yours` under an agent);
`approval-rule-unavailable` for a request whose command was cut short or that names neither
one command nor one file.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("id", "peer_pid")

    def __init__(self, id: str, peer_pid: int) -> None:
        self.id = id
        self.peer_pid = peer_pid


def parse(request: Request) -> Params:
    return Params(request.text(ID), request.peer_pid)


async def handle(ctx: ApprovalRuleContext, params: Params) -> ApprovalRuleReply:
    from mytty.core.approvals.propose import rule_toml
    from mytty.protocol import wire

    desk = ctx.approvals
    rule = desk.propose(params.id, desk.caller(params.peer_pid))
    return wire.approval_rule_reply(desk.rule_table(rule), rule_toml(rule), desk.config_file)
