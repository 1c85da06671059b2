"""``sendKey``: one key event from the fixed key table (checked before the pane)."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, TmuxAccess
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.keys import KeyError_, tmux_key
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "sendKey"
ERRORS = frozenset(
    {
        ErrorCode.INVALID_KEY,
        ErrorCode.PANE_NOT_FOUND,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)


class SendKeyContext(PaneDirectory, TmuxAccess, Protocol):
    """What ``send_key`` uses of the controller."""


async def handle(ctx: SendKeyContext, params: Params) -> OkReply:
    key = params.str("key")
    modifiers = params.str_list("modifiers")
    try:
        name = tmux_key(key, modifiers)
    except KeyError_:
        raise MyttyError(
            ErrorCode.INVALID_KEY,
            f"unknown key {key!r}; use escape, tab, return/enter, delete, space, up, down, left, "
            "right, f1-f12 or a single character",
        ) from None
    pane = ctx.require_pane(params.str("paneID"))
    async with ctx.pane_lock(pane.surface_id):
        await ctx.require_port().send_key(pane.tmux_id, name)
    return wire.ok()
