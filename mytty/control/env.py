"""``env``: the mytty environment of the pane the caller runs in (for hand-made panes).

The pane is decided from the caller's process ancestry (SO_PEERCRED pid → parents → a pane's
shell pid), never from anything the caller says, so a process cannot obtain another pane's
capability.
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, PaneFacts
from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol import wire
from mytty.protocol.replies import EnvReply

TYPE = "env"
ERRORS = frozenset({ErrorCode.NOT_IN_PANE, ErrorCode.TMUX_UNAVAILABLE})


class EnvContext(PaneDirectory, PaneFacts, Protocol):
    """What ``env`` uses of the controller."""


async def handle(ctx: EnvContext, params: Params) -> EnvReply:
    surface = ctx.caller_surface(params.peer_pid)
    if surface is None:
        await ctx.refresh_panes()  # the caller's pane may be seconds old
        surface = ctx.caller_surface(params.peer_pid)
    if surface is None:
        raise MyttyError(
            ErrorCode.NOT_IN_PANE,
            "the caller does not run inside a pane of the tmux server this controller owns",
        )
    return wire.env_reply(surface, ctx.pane_environment(surface))
