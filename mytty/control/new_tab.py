"""``newTab``: a new tmux window in the human's current session (else ``mytty``).

``command`` runs once in the new pane's shell after it has started (nothing is typed, so it
cannot be garbled by a slow rc file and never lands in shell history).
"""

from __future__ import annotations

from typing import Any

from mytty.control.base import Context, Params
from mytty.control.pane_args import initial_command, working_directory
from mytty.core.errors import ErrorCode

TYPE = "newTab"
ERRORS = frozenset(
    {ErrorCode.INVALID_CWD, ErrorCode.INVALID_COMMAND, ErrorCode.NEW_TAB_FAILED,
     ErrorCode.TMUX_UNAVAILABLE, ErrorCode.INVALID_REQUEST}
)


async def handle(ctx: Context, params: Params) -> dict[str, Any]:
    cwd = working_directory(params)
    command = initial_command(params)
    session = await ctx.preferred_session()
    pane = await ctx.create_pane(session=session, cwd=cwd, command=command)
    return {"type": "pane", "paneID": pane.surface_id}
