"""``split``: split a pane (``auto`` picks the pane and side that keep the tab an even grid)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.base import Params
from mytty.control.pane_args import initial_command, working_directory
from mytty.control.ports import PaneDirectory, PaneFactory, PaneView
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.layout import PaneGeom, WindowGeom, WorkerPlacement, balanced_split, place_worker
from mytty.protocol import wire
from mytty.protocol.replies import PaneReply

if TYPE_CHECKING:
    from mytty.core.ids import SurfaceId
    from mytty.tmux.port import PaneRow

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


def place_worker_from(ctx: PaneDirectory, anchor: PaneView) -> WorkerPlacement:
    """Where an ``auto`` worker spawned from ``anchor`` goes (:func:`core.layout.place_worker`)."""
    home = anchor.row
    if home is None:
        raise MyttyError(ErrorCode.PANE_NOT_FOUND, "tmux has not listed the anchor pane yet")
    windows: dict[str, list[PaneRow]] = {}
    ids: dict[str, SurfaceId] = {}
    for p in ctx.panes.panes():
        if p.row is not None and p.row.session_id == home.session_id:
            windows.setdefault(p.row.window_id, []).append(p.row)
            ids[p.row.pane_id] = p.surface_id
    geoms = [
        WindowGeom(
            id=window_id,
            index=rows[0].window_index,
            name=rows[0].window_name,
            width=rows[0].window_width,
            height=rows[0].window_height,
            zoomed=rows[0].window_zoomed,
            panes=tuple(PaneGeom(ids[r.pane_id], r.left, r.top, r.width, r.height) for r in rows),
        )
        for window_id, rows in windows.items()
    ]
    return place_worker(anchor.surface_id, geoms)


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


class SplitContext(PaneDirectory, PaneFactory, Protocol):
    """What ``split`` uses of the controller."""


async def handle(ctx: SplitContext, params: Params) -> PaneReply:
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
