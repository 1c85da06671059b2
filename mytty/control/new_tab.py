"""``newTab``: a new tmux window in the human's current session (else ``mytty``).

Without ``workingDirectory`` the tab starts in the directory of that session's active pane.
``command`` runs once in the new pane's shell after it has started (nothing is typed, so it
cannot be garbled by a slow rc file and never lands in shell history).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import CWD, INITIAL_COMMAND, Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import PaneDirectory, PaneFactory
    from mytty.protocol.replies import PaneReply

    class NewTabContext(PaneDirectory, PaneFactory, Protocol):
        """What ``new_tab`` uses of the controller."""


COMMAND = Command(
    name="new-tab",
    wire="newTab",
    summary="open a tab (tmux window); TEXT runs there once",
    options=(CWD, INITIAL_COMMAND),
    errors=(
        codes.INVALID_CWD,
        codes.INVALID_COMMAND,
        codes.NEW_TAB_FAILED,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE, codes.INVALID_COMMAND),
    doc="""
Opens a tmux window (a "tab") in the session of the most recently active attached client; with
nobody attached, in the `mytty` session; failing that, in any session. The new window is not
selected. Without `--cwd` it starts in the directory of that session's active pane.

`--command TEXT` runs once in the new pane's shell after the shell has fully started. It is
written to a private file (`$MYTTY_HOME/launch/`, mode 0600) that the shell reads and deletes, so
nothing is typed, nothing lands in shell history, and a slow rc file cannot eat it.
`--command ""` is refused before connecting (`invalid-command`). A `--cwd` that is not an
existing directory is `invalid-cwd`.

Request `{"type":"newTab","workingDirectory"?:"/abs/dir","command"?:"TEXT"}`.
Reply `{"paneID":"56039AE7-369F-493B-8C55-0F4BB121E342","type":"pane"}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("command", "cwd")

    def __init__(self, cwd: str | None, command: str | None) -> None:
        self.cwd = cwd
        self.command = command


def parse(request: Request) -> Params:
    return Params(request.optional_text(CWD), request.optional_text(INITIAL_COMMAND))


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


async def handle(ctx: NewTabContext, params: Params) -> PaneReply:
    from mytty.control.pane_args import initial_command, working_directory
    from mytty.protocol import wire

    cwd = working_directory(params.cwd)
    command = initial_command(params.command)
    session = await ctx.preferred_session()
    if cwd is None:
        await ctx.refresh_panes()  # tmux does not announce a `cd`: take a fresh look
        cwd = _active_directory(ctx, session)
    pane = await ctx.create_pane(session=session, cwd=cwd, command=command)
    return wire.pane_reply(pane.surface_id)
