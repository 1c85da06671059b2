"""``newTab``: a new tmux window in the human's current session (else ``mytty``).

Without ``workingDirectory`` the tab starts in the directory of that session's active pane.

``command`` runs once in the new pane's shell after it has started (nothing is typed, so it
cannot be garbled by a slow rc file and never lands in shell history).
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.pane_args import initial_command, working_directory
from mytty.control.ports import PaneDirectory, PaneFactory
from mytty.core.errors import ErrorCode
from mytty.protocol import wire
from mytty.protocol.replies import PaneReply

TYPE = "newTab"
ERRORS = frozenset(
    {
        ErrorCode.INVALID_CWD,
        ErrorCode.INVALID_COMMAND,
        ErrorCode.NEW_TAB_FAILED,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)


def _active_directory(ctx: PaneDirectory, session: str) -> str | None:
    """The current directory of the session's active pane (what a new tab inherits)."""
    for pane in ctx.panes.panes():
        row = pane.row
        if (
            row is not None
            and row.session_name == session
            and row.window_active
            and row.pane_active
        ):
            return row.current_path or None
    return None


class NewTabContext(PaneDirectory, PaneFactory, Protocol):
    """What ``new_tab`` uses of the controller."""


async def handle(ctx: NewTabContext, params: Params) -> PaneReply:
    cwd = working_directory(params)
    command = initial_command(params)
    session = await ctx.preferred_session()
    if cwd is None:
        await ctx.refresh_panes()  # tmux does not announce a `cd`: take a fresh look
        cwd = _active_directory(ctx, session)
    pane = await ctx.create_pane(session=session, cwd=cwd, command=command)
    return wire.pane_reply(pane.surface_id)
