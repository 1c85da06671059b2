"""Pane geometry: where an ``auto`` split goes.

Pure: the caller reads the panes' rectangles from tmux.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mytty.core.vocab import Side as SplitDirection


@dataclass(frozen=True, slots=True)
class PaneGeom:
    """A pane's id and its rectangle in character cells (as tmux reports it)."""

    id: str
    left: int
    top: int
    width: int
    height: int


# A terminal cell is about twice as tall as it is wide: compare width with 2 × height.
CELL_ASPECT = 2


def _halves_mismatch(
    width: float, height: float, direction: SplitDirection, window: float
) -> float:
    # How far (log scale) the halves' visual aspect is from the window's.
    w, h = (width / 2, height) if direction == "right" else (width, height / 2)
    return abs(math.log((w / (CELL_ASPECT * h)) / window))


def balanced_split(
    panes: Sequence[PaneGeom],
    window_w: int,
    window_h: int,
    *,
    prefer: str | None = None,
) -> tuple[str, SplitDirection]:
    """Pick the pane to split, and how, so a tab of workers grows into an even grid.

    Heuristic: split the pane with the largest area, across its longer *visual* side (``right``
    when ``width > 2 × height``, ``down`` when ``width < 2 × height``). Halving the biggest pane
    keeps every pane within a factor of two of the others, and cutting across the longer side keeps
    panes close to square, so 1 → 2 → 4 panes become two columns, then a 2 × 2 grid. A visually
    square pane is cut so its halves have the window's proportions (a wide window → ``down``).
    Ties on area go to ``prefer`` (normally the anchor), then to the top-most, left-most pane,
    then to the smaller id. The new pane always goes right of or below the old one, so the
    answer is ``right`` or ``down``.
    """
    if not panes:
        raise ValueError("a tab has at least one pane")
    target = min(
        panes,
        key=lambda p: (-(p.width * p.height), p.id != prefer, p.top, p.left, p.id),
    )
    visual_width = target.width
    visual_height = CELL_ASPECT * target.height
    if visual_width > visual_height:
        return target.id, "right"
    if visual_width < visual_height:
        return target.id, "down"
    window = max(window_w, 1) / (CELL_ASPECT * max(window_h, 1))
    width, height = max(target.width, 1), max(target.height, 1)
    if _halves_mismatch(width, height, "right", window) < _halves_mismatch(
        width, height, "down", window
    ):
        return target.id, "right"
    return target.id, "down"


# --------------------------------------------------------------------------------------------
# Where a spawned worker goes (the lead keeps a usable pane)
# --------------------------------------------------------------------------------------------

#: A worker pane smaller than this is not usable for an agent's TUI.
MIN_WORKER_COLUMNS = 80
MIN_WORKER_ROWS = 15
#: The name of the windows that take workers once the lead's tab is full.
WORKERS_WINDOW = "workers"


@dataclass(frozen=True, slots=True)
class WindowGeom:
    """One tmux window of the lead's session: its place, name, zoom and panes."""

    id: str
    index: int
    name: str
    width: int
    height: int
    zoomed: bool
    panes: tuple[PaneGeom, ...]


@dataclass(frozen=True, slots=True)
class WorkerPlacement:
    """Split ``split`` towards ``direction``, or (``split`` None) open a new ``workers``
    window right after window ``after``; ``reason`` says why, for the human."""

    split: str | None
    direction: SplitDirection | None
    after: str | None
    reason: str

    @property
    def next_to_lead(self) -> bool:
        return self.reason == NEXT_TO_LEAD


NEXT_TO_LEAD = "next to the lead"


def _fits(pane: PaneGeom, direction: SplitDirection) -> bool:
    # tmux gives the new pane half the cells, less the one-cell border.
    if direction == "right":
        return (pane.width - 1) // 2 >= MIN_WORKER_COLUMNS and pane.height >= MIN_WORKER_ROWS
    return (pane.height - 1) // 2 >= MIN_WORKER_ROWS and pane.width >= MIN_WORKER_COLUMNS


def _usable_split(
    panes: Sequence[PaneGeom], window: WindowGeom, prefer: str | None
) -> tuple[str, SplitDirection] | None:
    """The balanced split of ``panes`` if both halves stay usable (else its other direction)."""
    if not panes:
        return None
    target_id, direction = balanced_split(panes, window.width, window.height, prefer=prefer)
    target = next(p for p in panes if p.id == target_id)
    other: SplitDirection = "down" if direction == "right" else "right"
    for choice in (direction, other):
        if _fits(target, choice):
            return target_id, choice
    return None


def place_worker(anchor: str, windows: Sequence[WindowGeom]) -> WorkerPlacement:
    """Where an ``auto`` worker spawned from ``anchor`` goes, so the lead stays usable.

    Policy (docs/reference/mytty-ctl.md, "Where workers go"):

    1. The lead's window is zoomed → never unzoom it: the worker goes to a ``workers`` window.
    2. The lead's tab has no other pane → split the lead itself (across its longer visual side,
       so it keeps half), if the worker's half is at least 80 × 15 cells.
    3. Otherwise the lead is never split again: the other panes of its tab share the space
       (the balanced grid of :func:`balanced_split`), while each half stays at least 80 × 15.
    4. Else (the lead's tab is full) → the first ``workers`` window after the lead's window,
       among consecutive ones, with room by the same rule; or a new one after them.
    """
    ordered = sorted(windows, key=lambda w: w.index)
    home = next((w for w in ordered if any(p.id == anchor for p in w.panes)), None)
    if home is None:
        raise ValueError("the anchor is in none of the windows")
    if home.zoomed:
        reason = "the lead's window is zoomed, and stays so"
    else:
        lead = next(p for p in home.panes if p.id == anchor)
        others = [p for p in home.panes if p.id != anchor]
        found = _usable_split(others or [lead], home, None if others else anchor)
        if found is not None:
            return WorkerPlacement(found[0], found[1], None, NEXT_TO_LEAD)
        reason = "the lead's tab has no room for another usable pane"
    after = home
    for window in ordered[ordered.index(home) + 1 :]:
        if window.name != WORKERS_WINDOW:
            break
        found = _usable_split(list(window.panes), window, None)
        if found is not None and not window.zoomed:
            return WorkerPlacement(found[0], found[1], None, reason)
        after = window
    return WorkerPlacement(None, None, after.id, reason)
