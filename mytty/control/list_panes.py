"""``list``: every pane of the bound tmux server (the controller's private session excluded)."""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import PaneDirectory, PaneFacts
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import ListReply

TYPE = "list"
ERRORS = frozenset({ErrorCode.TMUX_UNAVAILABLE})


class ListContext(PaneDirectory, PaneFacts, Protocol):
    """What ``list_panes`` uses of the controller."""


async def handle(ctx: ListContext, params: Params) -> ListReply:
    await ctx.refresh_panes()
    listed = [
        (p.row.session_name, p.row.window_index, p.row.pane_index, p)
        for p in ctx.panes.panes()
        if p.row is not None
    ]
    listed.sort(key=lambda entry: entry[:3])
    return wire.list_reply(ctx.pane_info(entry[3]) for entry in listed)
