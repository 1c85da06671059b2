"""``ensureSession``: make sure the ``mytty`` session exists (used by ``mytty up``)."""

from __future__ import annotations

from typing import Any

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode

TYPE = "ensureSession"
ERRORS = frozenset({ErrorCode.TMUX_UNAVAILABLE, ErrorCode.NEW_TAB_FAILED})


async def handle(ctx: Context, params: Params) -> dict[str, Any]:
    session = await ctx.ensure_user_session()
    return {"type": "session", "name": session, "tmuxSocket": ctx.tmux_socket}
