"""``attention``: the attention items (what needs a human), newest first.

``acknowledge`` (a list of run ids: every open item of those runs) or ``acknowledgeAll``
marks items as seen first; acknowledged items stop being actionable and are
dropped 24 h later. Acknowledgements are stored, so they survive a restart.
"""

from __future__ import annotations

import time

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import AttentionReply

TYPE = "attention"
ERRORS = frozenset({ErrorCode.INVALID_REQUEST, ErrorCode.INTERNAL_ERROR})


async def handle(ctx: Context, params: Params) -> AttentionReply:
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
    return wire.attention_reply(items)
