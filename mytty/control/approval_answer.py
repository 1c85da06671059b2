"""``answerApproval``: allow or deny one permission request, by its id (or a unique prefix).

The first decision wins. Within the hold the decision is the agent's hook's reply (a deny
message reaches the model); after it, the answer is typed into the agent's own dialog, and only
once its screen shows that very request (:mod:`mytty.daemon.approvals.delivery`). Who may answer:
any person; a process under an agent only requests of the workers its pane spawned with
``agent spawn --approver lead``, never its own pane's (checked from the caller's ancestry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import FLAG, Arg, Command, Field, Option
from mytty.core import codes
from mytty.core.vocab import HUMAN_CHANNELS

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import ApprovalAccess
    from mytty.protocol.replies import ApprovalReply

    class ApprovalAnswerContext(ApprovalAccess, Protocol):
        """What ``approval_answer`` uses of the controller."""


ID = Arg("ID", "id", "the request's id, or a unique prefix of it (as `approval list` shows it)")
DECISION = Arg("DECISION", "decision", "allow or deny", choices=("allow", "deny"))
MESSAGE = Option(
    "--message",
    "TEXT",
    "message",
    "with deny: what the model is told (one line, at most 2000 characters)",
)
VIA = Field(
    "via",
    "a person's surface, for the audit's decidedBy (human:<via>): tty, popup or web",
    choices=HUMAN_CHANNELS,
    default="tty",
)
SESSION = Field("session", "a web view's session label, kept with a human:web decision")
ALWAYS = Field(
    "always",
    "a person only, with allow: first write the narrowest rule that allows this request into "
    "config.toml (mytty approve --always)",
    kind=FLAG,
)

COMMAND = Command(
    name="approval answer",
    wire="answerApproval",
    summary="allow or deny one permission request of a worker you spawned",
    args=(ID, DECISION),
    options=(MESSAGE,),
    wire_fields=(VIA, SESSION, ALWAYS),
    receive_timeout=30.0,
    errors=(
        codes.APPROVAL_NOT_FOUND,
        codes.APPROVAL_ALREADY_ANSWERED,
        codes.APPROVAL_NOT_YOURS,
        codes.APPROVAL_NOT_ON_SCREEN,
        codes.APPROVAL_MESSAGE_UNDELIVERABLE,
        codes.APPROVAL_DELIVERY_FAILED,
        codes.APPROVAL_RULE_UNAVAILABLE,
        codes.INVALID_CONFIGURATION,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    guide="""\
approval answer ID allow|deny [--message TEXT]
Answer one permission request of a worker you spawned with --approver lead (ID from
approval list; a unique prefix is enough). deny --message TEXT: the worker's model is told
TEXT and goes on (within the hold; Codex's own dialog cannot carry a message afterwards).
The first answer wins: approval-already-answered after that. approval-not-yours: not a
worker of yours with --approver lead, or your own pane's request.""",
    doc="""
Request `{"type":"answerApproval","id":"<ID or prefix>","decision":"allow"|"deny","message"?:TEXT,"via"?:"tty"|"popup"|"web","session"?:TEXT,"always"?:true}`.
Reply `{"type":"approval","approval":ENTRY,"rule":RULE|null}` with the request as decided
(ENTRY as in [`approval list`](#approval-list); `decidedBy` is `human:<via>` for a person or
`lead:<job id>` for a lead, `deliveredBy` `hook` or `dialog`) and, for `always`, the rule written.

- `id` names one request: its full id or a prefix of it (hyphens optional). A prefix shared by
  several is `approval-not-found`, as is an unknown or empty one; nothing is ever answered by
  default.
- Within the hold (`state` `holding`) the decision is the reply the agent's hook prints; a
  deny `message` is what the model reads, and the turn goes on.
- After it (`state` `dialog`) the answer is typed into the agent's own dialog, only once the
  pane's screen shows that very request's dialog (`approval-not-on-screen` otherwise: nothing
  is typed and the request stays open). Claude Code: the option's digit; a deny message moves
  to "No", Tab, the text, Enter. Codex: `y` / `n`; a deny message there is
  `approval-message-undeliverable` (its dialog only interrupts the turn).
- Who: a person answers any request (`via` and `session` go into the audit); a process under an
  agent only requests of workers its pane spawned with `agent spawn --approver lead`, never
  its own pane's (`approval-not-yours`).
- `always` (a person, with `allow`): the narrowest rule that allows exactly this request is
  appended to config.toml first (`mytty approve --always` shows it before), then the request is
  allowed. `approval-rule-unavailable` when no rule can be that narrow.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("always", "decision", "id", "message", "peer_pid", "session", "via")

    def __init__(
        self,
        id: str,
        decision: str,
        message: str | None,
        via: str,
        session: str | None,
        always: bool,
        peer_pid: int,
    ) -> None:
        self.id = id
        self.decision = decision
        self.message = message
        self.via = via
        self.session = session
        self.always = always
        self.peer_pid = peer_pid


def parse(request: Request) -> Params:
    return Params(
        request.text(ID),
        request.choice(DECISION),
        request.optional_text(MESSAGE),
        request.choice(VIA),
        request.optional_text(SESSION),
        request.flag(ALWAYS),
        request.peer_pid,
    )


async def handle(ctx: ApprovalAnswerContext, params: Params) -> ApprovalReply:
    from mytty.core.approvals.model import Decision
    from mytty.protocol import wire

    desk = ctx.approvals
    done, rule = await desk.answer(
        params.id,
        Decision(params.decision),
        caller=desk.caller(params.peer_pid),
        channel=params.via,
        message=params.message,
        session=params.session,
        always=params.always,
    )
    return wire.approval_reply(desk.entry(done), desk.rule_table(rule) if rule else None)
