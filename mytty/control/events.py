"""``events``: long-poll the ledger of agent events across every pane.

No ``afterSequence`` establishes a cursor and returns at once. A page cut short reports the
last record it returned as ``latestSequence``, so feeding it back never skips a record; a
cursor older than the retained window gets what is retained plus ``truncated: true``.
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import RunWaiter
from mytty.core.errors import ErrorCode
from mytty.core.ledger import LedgerPage
from mytty.protocol import wire
from mytty.protocol.replies import EventsReply

TYPE = "events"
ERRORS = frozenset({ErrorCode.INVALID_REQUEST})
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 600.0


class EventsContext(RunWaiter, Protocol):
    """What ``events`` uses of the controller."""


async def handle(ctx: EventsContext, params: Params) -> EventsReply:
    after = params.opt_int("afterSequence")
    timeout = min(MAX_TIMEOUT_S, max(0.0, params.number("timeoutSeconds", DEFAULT_TIMEOUT_S)))
    ledger = ctx.hub.ledger
    if after is None:
        return wire.events_reply(ledger.query(None), False)

    def probe() -> LedgerPage | None:
        page = ledger.query(after)
        return page if page.records else None

    page, timed_out = await ctx.hub.wait_until(probe, timeout)
    if page is None:
        page = ledger.query(after)
    return wire.events_reply(page, timed_out)
