"""``ensureSession``: make sure the ``mytty`` session exists (used by ``mytty up``)."""

from __future__ import annotations

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import SessionReply

TYPE = "ensureSession"
ERRORS = frozenset({ErrorCode.TMUX_UNAVAILABLE, ErrorCode.NEW_TAB_FAILED})


async def handle(ctx: Context, params: Params) -> SessionReply:
    session = await ctx.ensure_user_session()
    return wire.session_reply(session, ctx.tmux_socket)
