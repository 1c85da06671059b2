"""``setPaneStatus``: an agent's own one-line progress note (memory only; null clears)."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, RunWaiter
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.notes import validate_status
from mytty.protocol import wire
from mytty.protocol.replies import OkReply

TYPE = "setPaneStatus"
ERRORS = frozenset(
    {
        ErrorCode.INVALID_STATUS,
        ErrorCode.PANE_NOT_FOUND,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)


class StatusContext(PaneDirectory, RunWaiter, Protocol):
    """What ``status`` uses of the controller."""


async def handle(ctx: StatusContext, params: Params) -> OkReply:
    status = params.opt_str("status")
    if status is not None:
        problem = validate_status(status)
        if problem is not None:
            raise MyttyError(ErrorCode.INVALID_STATUS, problem)
    pane = ctx.require_pane(params.str("paneID"))
    if status is None:
        ctx.hub.notes.clear(pane.surface_id)
    else:
        ctx.hub.notes.set(pane.surface_id, status)
    return wire.ok()
