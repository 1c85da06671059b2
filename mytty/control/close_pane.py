"""``closePane``: close a pane at once, without asking."""

from __future__ import annotations

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "closePane"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


async def handle(ctx: Context, params: Params) -> OkReply:
    pane = ctx.require_pane(params.str("paneID"))
    await ctx.close_pane(pane)
    return wire.ok()
