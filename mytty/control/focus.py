"""``focus``: select the pane's window and pane (and bring the human's client to it)."""

from __future__ import annotations

from typing import Any

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "focus"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


async def focus_pane(ctx: Context, pane: Any) -> None:
    await ctx.require_port().focus(pane.tmux_id, pane.row.window_id, pane.row.session_name)


async def handle(ctx: Context, params: Params) -> OkReply:
    pane = ctx.require_pane(params.str("paneID"))
    await focus_pane(ctx, pane)
    return wire.ok()
