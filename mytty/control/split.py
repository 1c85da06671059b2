"""``split``: split a pane (``auto`` picks the pane and side that keep the tab an even grid)."""

from __future__ import annotations

from mytty.control.base import Context, Params
from mytty.control.pane_args import initial_command, working_directory
from mytty.control.ports import PaneDirectory, PaneView
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.layout import PaneGeom, balanced_split
from mytty.protocol import wire
from mytty.protocol.replies import PaneReply

TYPE = "split"
ERRORS = frozenset(
    {
        ErrorCode.PANE_NOT_FOUND,
        ErrorCode.INVALID_CWD,
        ErrorCode.INVALID_COMMAND,
        ErrorCode.SPLIT_FAILED,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)
DIRECTIONS = ("left", "right", "up", "down", "auto")


def choose_target(ctx: PaneDirectory, pane: PaneView, direction: str) -> tuple[PaneView, str]:
    """Resolve ``auto`` into a concrete (pane, direction) within the pane's tab."""
    row = pane.row
    if direction != "auto" or row is None:
        return pane, direction
    siblings: dict[str, PaneView] = {}
    geoms: list[PaneGeom] = []
    for p in ctx.panes.panes():
        if p.row is not None and p.row.window_id == row.window_id:
            siblings[p.surface_id] = p
            geoms.append(PaneGeom(p.surface_id, p.row.left, p.row.top, p.row.width, p.row.height))
    target_id, side = balanced_split(
        geoms, row.window_width, row.window_height, prefer=pane.surface_id
    )
    return siblings[target_id], side


async def handle(ctx: Context, params: Params) -> PaneReply:
    pane = ctx.require_pane(params.str("paneID"))
    direction = params.opt_str("direction") or "auto"
    if direction not in DIRECTIONS:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST, f"direction must be one of {', '.join(DIRECTIONS)}"
        )
    cwd = working_directory(params)
    command = initial_command(params)
    await ctx.refresh_panes()
    pane = ctx.require_pane(pane.surface_id)
    target, side = choose_target(ctx, pane, direction)
    created = await ctx.create_pane(
        split_from=target,
        direction=side,
        cwd=cwd or (target.row.current_path if target.row is not None else "") or None,
        command=command,
    )
    return wire.pane_reply(created.surface_id)
