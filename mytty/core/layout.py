"""Pane geometry: where an ``auto`` split goes.

Pure: the caller reads the panes' rectangles from tmux.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

SplitDirection = Literal["left", "right", "up", "down"]


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
