"""``read``: the pane's text (scrollback included, wrapped lines joined) and cursor position."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, PaneView, TmuxAccess
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import ContentReply, PaneContent

TYPE = "read"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


async def read_content(ctx: TmuxAccess, pane: PaneView, echo_id: str) -> PaneContent:
    capture = await ctx.require_port().capture(pane.tmux_id)
    return wire.pane_content(echo_id, capture.text, capture.cursor_row, capture.cursor_column)


class ReadContext(PaneDirectory, TmuxAccess, Protocol):
    """What ``read`` uses of the controller."""


async def handle(ctx: ReadContext, params: Params) -> ContentReply:
    pane_id = params.str("paneID")
    pane = ctx.require_pane(pane_id)
    return wire.content_reply(await read_content(ctx, pane, pane_id))
