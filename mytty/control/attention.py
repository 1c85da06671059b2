"""``attention``: the attention items (what needs a human), newest first.

``acknowledge`` (a list of run ids: every open item of those runs) or ``acknowledgeAll``
marks items as seen first; acknowledged items stop being actionable and are
dropped 24 h later. Acknowledgements are stored, so they survive a restart.
"""

from __future__ import annotations

import time
from typing import Any

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode
from mytty.core.events import format_timestamp

TYPE = "attention"
ERRORS = frozenset({ErrorCode.INVALID_REQUEST, ErrorCode.INTERNAL_ERROR})


def item_to_wire(item: Any) -> dict[str, Any]:
    return {
        "paneID": item.pane_id,
        "runID": item.run_id,
        "provider": item.provider.value,
        "kind": item.kind.value,
        "message": item.message,
        "createdAt": format_timestamp(item.created_at, fractional=True),
        # An item the human acknowledged counts as resolved at that moment.
        "resolvedAt": (
            format_timestamp(resolved, fractional=True)
            if (resolved := item.resolved_at or item.acknowledged_at) is not None
            else None
        ),
    }


async def handle(ctx: Context, params: Params) -> dict[str, Any]:
    now = time.time()
    runs = {run.upper() for run in params.str_list("acknowledge")}
    everything = params.bool("acknowledgeAll", False)
    wanted = {
        i.id
        for i in ctx.hub.attention.items(now)
        if i.actionable and (everything or i.run_id in runs)
    }
    for item_id in sorted(wanted):
        if ctx.hub.attention.acknowledge(item_id, now):
            await ctx.hub.store.acknowledge(item_id, now)
    if wanted:
        ctx.hub.bump()
    items = ctx.hub.attention.items(now)
    return {"type": "attention", "items": [item_to_wire(i) for i in items]}
