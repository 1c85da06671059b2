"""Pane geometry: where an ``auto`` split goes (mytty.core.layout)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.layout import PaneGeom, balanced_split

# --------------------------------------------------------------------------------------------
# Auto split
# --------------------------------------------------------------------------------------------


def test_single_wide_pane_splits_right() -> None:
    assert balanced_split([PaneGeom("A", 0, 0, 200, 50)], 200, 50) == ("A", "right")


def test_single_tall_pane_splits_down() -> None:
    assert balanced_split([PaneGeom("A", 0, 0, 80, 60)], 80, 60) == ("A", "down")


def test_visually_square_pane_follows_the_window_shape() -> None:
    square = PaneGeom("A", 0, 0, 100, 50)
    assert balanced_split([square], 200, 50) == ("A", "down")  # wide window
    assert balanced_split([square], 100, 100) == ("A", "right")  # tall window


def test_the_largest_pane_is_split() -> None:
    panes = [
        PaneGeom("A", 0, 0, 100, 50),
        PaneGeom("B", 101, 0, 99, 24),
        PaneGeom("C", 101, 25, 99, 25),
    ]
    assert balanced_split(panes, 200, 50) == ("A", "down")


def test_area_ties_prefer_the_anchor_then_top_left() -> None:
    panes = [PaneGeom("B", 101, 0, 99, 50), PaneGeom("A", 0, 0, 99, 50)]
    assert balanced_split(panes, 200, 50)[0] == "A"
    assert balanced_split(panes, 200, 50, prefer="B")[0] == "B"
    assert balanced_split(panes, 200, 50, prefer="nope")[0] == "A"


def _apply_split(panes: list[PaneGeom], target: str, direction: str, n: int) -> list[PaneGeom]:
    out: list[PaneGeom] = []
    for p in panes:
        if p.id != target:
            out.append(p)
        elif direction == "right":
            left_w = (p.width - 1) // 2 + (p.width - 1) % 2
            out.append(PaneGeom(p.id, p.left, p.top, left_w, p.height))
            out.append(
                PaneGeom(f"P{n}", p.left + left_w + 1, p.top, p.width - left_w - 1, p.height)
            )
        else:
            top_h = (p.height - 1) // 2 + (p.height - 1) % 2
            out.append(PaneGeom(p.id, p.left, p.top, p.width, top_h))
            out.append(PaneGeom(f"P{n}", p.left, p.top + top_h + 1, p.width, p.height - top_h - 1))
    return out


def test_repeated_auto_splits_grow_an_even_grid() -> None:
    panes = [PaneGeom("P0", 0, 0, 201, 51)]
    for n in range(1, 4):
        target, direction = balanced_split(panes, 201, 51)
        panes = _apply_split(panes, target, direction, n)
    # four panes: a 2 × 2 grid of roughly equal size
    assert sorted({p.left for p in panes}) == [0, 101]
    assert sorted({p.top for p in panes}) == [0, 26]
    areas = [p.width * p.height for p in panes]
    assert max(areas) <= 1.1 * min(areas)


def test_growth_never_leaves_a_pane_more_than_twice_another() -> None:
    panes = [PaneGeom("P0", 0, 0, 301, 81)]
    for n in range(1, 12):
        target, direction = balanced_split(panes, 301, 81)
        panes = _apply_split(panes, target, direction, n)
        areas = [p.width * p.height for p in panes]
        assert max(areas) <= 2.3 * min(areas)


def test_balanced_split_needs_a_pane() -> None:
    with pytest.raises(ValueError):
        balanced_split([], 80, 24)


geoms = st.lists(
    st.builds(
        PaneGeom,
        id=st.text("ABCDEFGH", min_size=1, max_size=3),
        left=st.integers(0, 300),
        top=st.integers(0, 100),
        width=st.integers(1, 300),
        height=st.integers(1, 100),
    ),
    min_size=1,
    max_size=8,
    unique_by=lambda p: p.id,
)


@given(geoms, st.randoms(use_true_random=False))
def test_balanced_split_is_deterministic_and_order_independent(panes: list[PaneGeom], rnd) -> None:  # type: ignore[no-untyped-def]
    first = balanced_split(panes, 300, 100)
    shuffled = list(panes)
    rnd.shuffle(shuffled)
    assert balanced_split(shuffled, 300, 100) == first
    target = next(p for p in panes if p.id == first[0])
    assert target.width * target.height == max(p.width * p.height for p in panes)
    assert first[1] in ("right", "down")
