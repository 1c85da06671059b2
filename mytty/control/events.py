"""``events``: long-poll the ledger of agent events across every pane.

No ``afterSequence`` establishes a cursor and returns at once. A page cut short reports the
last record it returned as ``latestSequence``, so feeding it back never skips a record; a
cursor older than the retained window gets what is retained plus ``truncated: true``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import COUNT, SECONDS, Command, Option, Values
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import RunWaiter
    from mytty.core.runs.ledger import LedgerPage
    from mytty.protocol.replies import EventsReply

    class EventsContext(RunWaiter, Protocol):
        """What ``events`` uses of the controller."""


DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 600.0

AFTER = Option(
    "--after",
    "SEQ",
    "afterSequence",
    "return records after this sequence number (0: all retained); without it, only the "
    "current cursor",
    kind=COUNT,
)
TIMEOUT = Option(
    "--timeout",
    "N",
    "timeoutSeconds",
    f"give up after N seconds (0 to {int(MAX_TIMEOUT_S)})",
    kind=SECONDS,
    default=DEFAULT_TIMEOUT_S,
    maximum=MAX_TIMEOUT_S,
)


def _client(request: dict[str, object], values: Values) -> float | None:
    # Without a cursor the controller answers at once, so only a real poll waits longer.
    timeout = request.get(TIMEOUT.key)
    if AFTER.key in request and isinstance(timeout, int | float):
        return math.ceil(float(timeout)) + 5.0
    return None


COMMAND = Command(
    name="events",
    wire="events",
    summary=f"long-poll agent events of every pane (default {int(DEFAULT_TIMEOUT_S)} s)",
    options=(AFTER, TIMEOUT),
    client=_client,
    errors=(codes.INVALID_REQUEST,),
    client_errors=(codes.USAGE, codes.INVALID_REQUEST),
    guide="""\
One loop watches every worker: see WATCHING SEVERAL WORKERS AT ONCE below.""",
    doc=f"""
Long-polls the controller's ledger of agent events across all panes; this is how one loop
watches many workers.

- Without `--after`: returns at once with no records and the current `latestSequence` (a
  cursor meaning "from now on").
- With `--after SEQ` (a non-negative integer of at most 19 digits; `0` means "everything
  retained"): returns as soon as records with `sequence > SEQ` exist, at most 200 of them,
  oldest first; otherwise blocks until one arrives or `N` seconds pass.
- `N` defaults to {int(DEFAULT_TIMEOUT_S)} and must be from 0 to {int(MAX_TIMEOUT_S)}, else
  `invalid-request` (from `mytty-ctl` before connecting, and from the controller for a raw
  request).

Feed `latestSequence` back as the next `--after`. When a page had to stop at 200 records,
`latestSequence` is the last record returned, so this loop never skips a record (a deliberate
change from the original, whose loop skipped the rest of a burst). When records after your
cursor were already evicted (only the last 1000 are kept), the reply carries `"truncated":true`.
The ledger is in memory: a controller restart starts the sequence at 1 again, and a cursor from
before the restart blocks until the new sequence passes it.

Request `{{"type":"events","afterSequence"?:7,"timeoutSeconds":60}}`. Reply:

```json
{{"latestSequence":10,"records":[{{"kind":"approval-requested","occurredAt":"2026-07-16T05:00:05.250Z","paneID":"490F88BA-FAAB-4316-BC18-E27EFE503F8C","provider":"claude-code","runID":"74C4B46D-9251-46AD-9200-61C97D98D43D","sequence":10,"synthesized":false}}],"timedOut":false,"type":"events"}}
```

A record has `sequence`, `paneID`, `provider` (`codex`, `claude-code`, …), `runID`, `kind`
(an [event kind](event-protocol.md#kinds)), `occurredAt` (ISO 8601 UTC with milliseconds),
`toolName` (only when the event had one) and `synthesized` (`true` for events mytty made
itself: startup sweep, superseded runs, the Cursor approval estimate). A timed-out poll has
`"records":[]`, `"timedOut":true` and an unchanged `latestSequence`.

```sh
cursor=$(mytty-ctl events | jq -r .latestSequence)
while true; do
  r=$(mytty-ctl events --after "$cursor" --timeout 60)
  cursor=$(printf '%s' "$r" | jq -r .latestSequence)
  printf '%s' "$r" | jq -c '.records[]'
done
```
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("after", "timeout_s")

    def __init__(self, after: int | None, timeout_s: float) -> None:
        self.after = after
        self.timeout_s = timeout_s


def parse(request: Request) -> Params:
    return Params(request.count(AFTER), request.seconds(TIMEOUT))


async def handle(ctx: EventsContext, params: Params) -> EventsReply:
    from mytty.protocol import wire

    ledger = ctx.hub.ledger
    after = params.after
    if after is None:
        return wire.events_reply(ledger.query(None), False)

    def probe() -> LedgerPage | None:
        page = ledger.query(after)
        return page if page.records else None

    page, timed_out = await ctx.hub.wait_until(probe, params.timeout_s, after_sequence=after)
    if page is None:
        page = ledger.query(after)
    return wire.events_reply(page, timed_out)
