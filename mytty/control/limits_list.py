"""``listLimits``: workers parked at their usage limit, and their accounts (a mytty addition).

A worker whose provider account hit its usage limit (Claude's 5-hour or weekly window,
Codex's plan limits) is ``parked`` rather than failed, and mytty continues it on its own
conversation after the reset (mytty.daemon.limits). This lists every parked job and every
account that has one, with the reset the provider gave and when mytty goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import UsageLimits
    from mytty.protocol.replies import LimitsReply

    class LimitsListContext(UsageLimits, Protocol):
        """What ``limits_list`` uses of the controller."""


COMMAND = Command(
    name="limits list",
    wire="listLimits",
    summary="workers parked at their usage limit, and when mytty continues each",
    errors=(codes.INVALID_REQUEST,),
    guide="""\
limits list
Workers parked at their provider's usage limit ({"type":"limits","accounts":[…],"jobs":[…]}):
each job's parkedUntil (the provider's reset, null when it gave none), resumesAt (when mytty
continues it on its own conversation; null: it waits for `limits resume`), limit (the window),
account, held, streak (parks in a row) and heldSends. Humans run `mytty limits`.""",
    doc="""
A mytty addition. A job whose worker stopped at its provider account's usage limit is `parked`
(not `failed`): its run's turn ended at the limit, and mytty continues the job on its own
conversation at the provider's reset plus `[limits] resume_margin_seconds` (120 s), the jobs of
one account one at a time, `[limits] stagger_seconds` (5 s) apart
([how-to](../how-to/usage-limits.md)).

Reply `{"type":"limits","accounts":[{"account":"claude-code:3f2a9c1d4e5f","label":"claude-code
(/home/u/.claude)","provider":"claude-code","parkedUntil":"2026-12-02T00:00:00Z",
"nextResumeAt":"2026-12-02T00:02:00Z","jobs":[{"rawValue":"…"}]}],"jobs":[{"jobID":
{"rawValue":"…"},"paneID":{"rawValue":"…"},"provider":"claude","label"?:"…",
"parkedUntil":"2026-12-02T00:00:00Z","resumesAt":"2026-12-02T00:02:00Z","limit":"five_hour",
"account":"claude-code:3f2a9c1d4e5f","held":false,"streak":1,"heldSends":0,"message":"…"}]}`.
`parkedUntil` is the reset as the provider gave it (null: it gave none, and the job waits for
`limits resume`), `resumesAt` when mytty continues the job (null: not planned: held, no reset,
or `[limits] auto_resume = false`), `limit` the window in the provider's words (`five_hour`,
`seven_day`, …), `streak` the parks in a row (a job parked again right after going on waits
twice as long each time; after three re-parks it is held). An account's `parkedUntil` is the
reset its newest park named; `nextResumeAt` its next continuation.

Request `{"type":"listLimits"}`.
""",
)


class Params:
    """This request has no fields."""

    __slots__ = ()


def parse(request: Request) -> Params:
    return Params()


async def handle(ctx: LimitsListContext, params: Params) -> LimitsReply:
    return ctx.limits_report()
