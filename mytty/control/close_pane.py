"""``closePane``: close a pane at once, without asking."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, PaneFactory
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "closePane"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


class ClosePaneContext(PaneDirectory, PaneFactory, Protocol):
    """What ``close_pane`` uses of the controller."""


async def handle(ctx: ClosePaneContext, params: Params) -> OkReply:
    pane = ctx.require_pane(params.str("paneID"))
    await ctx.close_pane(pane)
    return wire.ok()
