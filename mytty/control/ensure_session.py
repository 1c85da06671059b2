"""``ensureSession``: make sure the ``mytty`` session exists (used by ``mytty up``)."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneFactory
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import SessionReply

TYPE = "ensureSession"
ERRORS = frozenset({ErrorCode.TMUX_UNAVAILABLE, ErrorCode.NEW_TAB_FAILED})


class EnsureSessionContext(PaneFactory, Protocol):
    """What ``ensure_session`` uses of the controller."""


async def handle(ctx: EnsureSessionContext, params: Params) -> SessionReply:
    session = await ctx.ensure_user_session()
    return wire.session_reply(session, ctx.tmux_socket)
