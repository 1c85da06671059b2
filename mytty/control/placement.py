"""Where a new pane goes: the pure layout rules of :mod:`mytty.core.layout` over the live panes.

Shared by ``split`` (``auto`` keeps the tab an even grid) and ``agent spawn`` (``auto`` keeps
the lead usable and sends workers to a ``workers`` window past that). Imported by handlers
when they run, never by ``mytty-ctl``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mytty.core.vocab import AUTO

if TYPE_CHECKING:
    from mytty.control.ports import PaneDirectory, PaneView
    from mytty.core.ids import SurfaceId
    from mytty.core.layout import WorkerPlacement
    from mytty.tmux.port import PaneRow


def place_worker_from(ctx: PaneDirectory, anchor: PaneView) -> WorkerPlacement:
    """Where an ``auto`` worker spawned from ``anchor`` goes (:func:`core.layout.place_worker`)."""
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.layout import PaneGeom, WindowGeom, place_worker

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
    from mytty.core.layout import PaneGeom, balanced_split

    row = pane.row
    if direction != AUTO or row is None:
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
