"""``closePane``: close a pane at once, without asking."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import PANE, Command
from mytty.control.targets import PaneParams as Params
from mytty.control.targets import parse_pane as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import PaneDirectory, PaneFactory
    from mytty.protocol.replies import OkReply

    class ClosePaneContext(PaneDirectory, PaneFactory, Protocol):
        """What ``close_pane`` uses of the controller."""


COMMAND = Command(
    name="close-pane",
    wire="closePane",
    summary="close a pane without asking",
    args=(PANE,),
    errors=(codes.PANE_NOT_FOUND, codes.TMUX_UNAVAILABLE, codes.INVALID_REQUEST),
    doc="""
Kills the pane at once, without asking. Request `{"type":"closePane","paneID":"<UUID>"}`,
reply `{"type":"ok"}`.
""",
)


async def handle(ctx: ClosePaneContext, params: Params) -> OkReply:
    from mytty.protocol import wire

    pane = ctx.require_pane(params.pane_id)
    await ctx.close_pane(pane)
    return wire.ok()
