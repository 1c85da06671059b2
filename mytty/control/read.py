"""``read``: the pane's text (scrollback included, wrapped lines joined) and cursor position."""

from __future__ import annotations

from typing import Any

from mytty.control.base import Context, Params
from mytty.core.errors import ErrorCode

TYPE = "read"
ERRORS = frozenset(
    {ErrorCode.PANE_NOT_FOUND, ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


async def read_content(ctx: Context, pane: Any, echo_id: str) -> dict[str, Any]:
    capture = await ctx.require_port().capture(pane.tmux_id)
    return {
        "paneID": echo_id,
        "text": capture.text,
        "cursorRow": capture.cursor_row,
        "cursorColumn": capture.cursor_column,
    }


async def handle(ctx: Context, params: Params) -> dict[str, Any]:
    pane_id = params.str("paneID")
    pane = ctx.require_pane(pane_id)
    return {"type": "content", "content": await read_content(ctx, pane, pane_id)}
