"""``send``: type literal text into a pane; a newline is Enter; ``pressEnter`` adds one more.

Sends to one pane are serialised so text and Enter never interleave between callers. The
Enter follows the text after a short pause because TUIs (Claude Code among them) treat input
that arrives in one burst as a paste, where Enter inserts a newline instead of submitting.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, PaneView, TmuxAccess
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "send"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)
ENTER_DELAY_S = 0.05


async def deliver(ctx: TmuxAccess, pane: PaneView, text: str, press_enter: bool) -> None:
    async with ctx.pane_lock(pane.surface_id):
        await ctx.require_port().send_text(pane.tmux_id, text)
        if press_enter:
            await asyncio.sleep(ENTER_DELAY_S)
            await ctx.require_port().send_key(pane.tmux_id, "Enter")


class SendContext(PaneDirectory, TmuxAccess, Protocol):
    """What ``send`` uses of the controller."""


async def handle(ctx: SendContext, params: Params) -> OkReply:
    pane = ctx.require_pane(params.str("paneID"))
    text = params.str("text")
    press_enter = params.bool("pressEnter", False)
    await deliver(ctx, pane, text, press_enter)
    return wire.ok()
