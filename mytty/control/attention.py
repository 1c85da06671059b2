"""``attention``: the attention items (what needs a human), newest first."""

from __future__ import annotations

import time
from typing import Any

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode
from mytty.core.events import format_timestamp

TYPE = "attention"
ERRORS = frozenset({ErrorCode.INVALID_REQUEST})


def item_to_wire(item: Any) -> dict[str, Any]:
    return {
        "paneID": item.pane_id,
        "runID": item.run_id,
        "provider": item.provider.value,
        "kind": item.kind.value,
        "message": item.message,
        "createdAt": format_timestamp(item.created_at, fractional=True),
        "resolvedAt": (format_timestamp(item.resolved_at, fractional=True)
                       if item.resolved_at is not None else None),
    }


async def handle(ctx: Context, params: Params) -> dict[str, Any]:
    items = ctx.hub.attention.items(time.time())
    return {"type": "attention", "items": [item_to_wire(i) for i in items]}
