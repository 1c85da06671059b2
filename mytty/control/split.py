"""``split``: split a pane (``auto`` picks the pane and side that keep the tab an even grid)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import CWD, INITIAL_COMMAND, PANE, Arg, Command
from mytty.core import codes
from mytty.core.vocab import AUTO, DIRECTIONS

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import PaneDirectory, PaneFactory
    from mytty.protocol.replies import PaneReply

    class SplitContext(PaneDirectory, PaneFactory, Protocol):
        """What ``split`` uses of the controller."""


DIRECTION = Arg(
    "DIRECTION",
    "direction",
    "where the new pane goes; auto keeps the tab an even grid",
    choices=DIRECTIONS,
    default=AUTO,
)

COMMAND = Command(
    name="split",
    wire="split",
    summary="split a pane (direction defaults to auto)",
    args=(PANE, DIRECTION),
    options=(CWD, INITIAL_COMMAND),
    errors=(
        codes.PANE_NOT_FOUND,
        codes.INVALID_CWD,
        codes.INVALID_COMMAND,
        codes.SPLIT_FAILED,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE, codes.INVALID_COMMAND),
    doc="""
Splits a pane. The direction defaults to `auto`, which keeps the tab an even grid: it splits
the largest pane of the tab (ties: the named pane, then the top-most, left-most), to the right
when the pane is more than twice as wide as tall in cells, else downwards. So with `auto` the
pane actually split may be a sibling of `PANE`. Focus does not move. Without `--cwd` the new
pane starts in the split pane's current directory. `--command` works as for `new-tab`.

Request `{"type":"split","paneID":"<UUID>","direction":"auto","workingDirectory"?:…,"command"?:…}`.
Reply `{"paneID":"F175A676-FA87-4D90-8CA0-68A6CAE6188C","type":"pane"}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("command", "cwd", "direction", "pane_id")

    def __init__(self, pane_id: str, direction: str, cwd: str | None, command: str | None) -> None:
        self.pane_id = pane_id
        self.direction = direction
        self.cwd = cwd
        self.command = command


def parse(request: Request) -> Params:
    return Params(
        request.text(PANE),
        request.choice(DIRECTION),
        request.optional_text(CWD),
        request.optional_text(INITIAL_COMMAND),
    )


async def handle(ctx: SplitContext, params: Params) -> PaneReply:
    from mytty.control.pane_args import initial_command, working_directory
    from mytty.control.placement import choose_target
    from mytty.protocol import wire

    pane = ctx.require_pane(params.pane_id)
    cwd = working_directory(params.cwd)
    command = initial_command(params.command)
    await ctx.refresh_panes()
    pane = ctx.require_pane(pane.surface_id)
    target, side = choose_target(ctx, pane, params.direction)
    created = await ctx.create_pane(
        split_from=target,
        direction=side,
        cwd=cwd or (target.row.current_path if target.row is not None else "") or None,
        command=command,
    )
    return wire.pane_reply(created.surface_id)
