"""``focus``: select the pane's window and pane (and bring the human's client to it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import PANE, Command
from mytty.control.targets import PaneParams as Params
from mytty.control.targets import parse_pane as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import PaneDirectory, PaneView, TmuxAccess
    from mytty.protocol.replies import OkReply

    class FocusContext(PaneDirectory, TmuxAccess, Protocol):
        """What ``focus`` uses of the controller."""


COMMAND = Command(
    name="focus",
    wire="focus",
    summary="bring a pane to the front",
    args=(PANE,),
    errors=(codes.PANE_NOT_FOUND, codes.TMUX_UNAVAILABLE, codes.INVALID_REQUEST),
    doc="""
Selects the pane and its window; if no attached client shows that session, the most recently
active client is switched to it. Request `{"type":"focus","paneID":"<UUID>"}`, reply `{"type":"ok"}`.
""",
)


async def focus_pane(ctx: TmuxAccess, pane: PaneView) -> None:
    row = pane.row
    if row is None:  # registered a moment ago and not listed by tmux yet
        from mytty.core.errors import ErrorCode, MyttyError

        raise MyttyError(ErrorCode.PANE_NOT_FOUND, "tmux does not list the pane (yet)")
    await ctx.require_port().focus(pane.tmux_id, row.window_id, row.session_name)


async def handle(ctx: FocusContext, params: Params) -> OkReply:
    from mytty.protocol import wire

    pane = ctx.require_pane(params.pane_id)
    await focus_pane(ctx, pane)
    return wire.ok()
