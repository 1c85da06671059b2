"""``focus``: select the pane's window and pane (and bring the human's client to it)."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, PaneView, TmuxAccess
from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "focus"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


async def focus_pane(ctx: TmuxAccess, pane: PaneView) -> None:
    row = pane.row
    if row is None:  # registered a moment ago and not listed by tmux yet
        raise MyttyError(ErrorCode.PANE_NOT_FOUND, "tmux does not list the pane (yet)")
    await ctx.require_port().focus(pane.tmux_id, row.window_id, row.session_name)


class FocusContext(PaneDirectory, TmuxAccess, Protocol):
    """What ``focus`` uses of the controller."""


async def handle(ctx: FocusContext, params: Params) -> OkReply:
    pane = ctx.require_pane(params.str("paneID"))
    await focus_pane(ctx, pane)
    return wire.ok()
