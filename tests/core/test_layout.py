"""Pane geometry: where an ``auto`` split goes (mytty.core.layout)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.layout import (
    MIN_WORKER_COLUMNS,
    MIN_WORKER_ROWS,
    WORKERS_WINDOW,
    PaneGeom,
    WindowGeom,
    WorkerPlacement,
    balanced_split,
    place_worker,
)

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
def test_balanced_split_is_deterministic_and_order_independent(panes: list[PaneGeom], rnd) -> None:
    first = balanced_split(panes, 300, 100)
    shuffled = list(panes)
    rnd.shuffle(shuffled)
    assert balanced_split(shuffled, 300, 100) == first
    target = next(p for p in panes if p.id == first[0])
    assert target.width * target.height == max(p.width * p.height for p in panes)
    assert first[1] in ("right", "down")


# --------------------------------------------------------------------------------------------
# Where a spawned worker goes
# --------------------------------------------------------------------------------------------


def _window(
    wid: str, index: int, panes: list[PaneGeom], *, name: str = "bash", zoomed: bool = False
) -> WindowGeom:
    width = max(p.left + p.width for p in panes)
    height = max(p.top + p.height for p in panes)
    return WindowGeom(wid, index, name, width, height, zoomed, tuple(panes))


def _apply(
    windows: list[WindowGeom], placement: WorkerPlacement, new_id: str, size: tuple[int, int]
) -> list[WindowGeom]:
    """What tmux does with a placement: split a pane in two, or insert a one-pane window."""
    out: list[WindowGeom] = []
    if placement.split is None:
        for window in windows:
            shifted = window
            after = next(w for w in windows if w.id == placement.after)
            if window.index > after.index:
                shifted = replace(window, index=window.index + 1)
            out.append(shifted)
        fresh = PaneGeom(new_id, 0, 0, *size)
        out.append(
            WindowGeom("@" + new_id, after.index + 1, WORKERS_WINDOW, *size, False, (fresh,))
        )
        return out
    for window in windows:
        panes = []
        for p in window.panes:
            if p.id != placement.split:
                panes.append(p)
            elif placement.direction == "right":
                new_w = (p.width - 1) // 2
                old = replace(p, width=p.width - new_w - 1)
                panes += [old, PaneGeom(new_id, p.left + old.width + 1, p.top, new_w, p.height)]
            else:
                new_h = (p.height - 1) // 2
                old = replace(p, height=p.height - new_h - 1)
                panes += [old, PaneGeom(new_id, p.left, p.top + old.height + 1, p.width, new_h)]
        out.append(replace(window, panes=tuple(panes)))
    return out


def _lead(windows: list[WindowGeom]) -> PaneGeom:
    return next(p for w in windows for p in w.panes if p.id == "lead")


def test_the_first_worker_halves_the_lead_and_later_ones_never_touch_it() -> None:
    windows = [_window("@1", 1, [PaneGeom("lead", 0, 0, 200, 60)])]
    first = place_worker("lead", windows)
    assert (first.split, first.direction, first.next_to_lead) == ("lead", "right", True)
    windows = _apply(windows, first, "w1", (200, 60))
    for n in (2, 3):
        placement = place_worker("lead", windows)
        assert placement.split != "lead"
        windows = _apply(windows, placement, f"w{n}", (200, 60))
    lead = _lead(windows)
    assert (lead.width, lead.height) == (100, 60)  # the issue: it was 50 columns
    # The third worker did not fit next to the lead as a usable pane: it has its own window.
    by_pane = {p.id: w for w in windows for p in w.panes}
    assert by_pane["w3"].name == WORKERS_WINDOW and by_pane["w3"].index == 2
    assert by_pane["w2"].id == "@1"


def test_a_zoomed_lead_stays_zoomed_and_its_worker_gets_a_window() -> None:
    lead = PaneGeom("lead", 0, 0, 200, 60)
    windows = [_window("@1", 1, [lead], zoomed=True), _window("@2", 2, [PaneGeom("x", 0, 0, 9, 9)])]
    placement = place_worker("lead", windows)
    assert (placement.split, placement.after) == (None, "@1")
    assert "zoomed" in placement.reason and not placement.next_to_lead


def test_workers_windows_fill_up_in_order_and_a_foreign_window_ends_the_chain() -> None:
    lead = PaneGeom("lead", 0, 0, 90, 20)  # too small to split usably
    windows = [
        _window("@1", 1, [lead]),
        _window("@2", 2, [PaneGeom("a", 0, 0, 200, 60)], name=WORKERS_WINDOW),
        _window("@3", 3, [PaneGeom("b", 0, 0, 200, 60)], name="editor"),
        _window("@4", 4, [PaneGeom("c", 0, 0, 200, 60)], name=WORKERS_WINDOW),
    ]
    assert place_worker("lead", windows).split == "a"
    full = replace(windows[1], panes=(PaneGeom("a", 0, 0, 100, 20),))
    placement = place_worker("lead", [windows[0], full, *windows[2:]])
    assert (placement.split, placement.after) == (None, "@2")  # not @4: "editor" is between


def test_a_lead_in_a_narrow_tall_window_splits_down() -> None:
    windows = [_window("@1", 1, [PaneGeom("lead", 0, 0, 120, 60)])]
    assert place_worker("lead", windows).direction == "down"


def test_place_worker_needs_the_anchor() -> None:
    with pytest.raises(ValueError):
        place_worker("nowhere", [_window("@1", 1, [PaneGeom("lead", 0, 0, 80, 24)])])


@given(
    st.integers(1, 400),
    st.integers(1, 120),
    st.integers(1, 8),
    st.tuples(st.integers(1, 300), st.integers(1, 100)),
)
def test_spawning_never_leaves_the_lead_or_a_split_worker_unusable(
    width: int, height: int, spawns: int, new_window: tuple[int, int]
) -> None:
    windows = [_window("@1", 1, [PaneGeom("lead", 0, 0, width, height)])]
    for n in range(spawns):
        placement = place_worker("lead", windows)
        windows = _apply(windows, placement, f"w{n}", new_window)
        if placement.split is not None:
            created = next(p for w in windows for p in w.panes if p.id == f"w{n}")
            assert created.width >= MIN_WORKER_COLUMNS and created.height >= MIN_WORKER_ROWS
    lead = _lead(windows)
    # The lead loses at most one half, once, along one side.
    assert (lead.width >= width // 2 and lead.height == height) or (
        lead.height >= height // 2 and lead.width == width
    )
    assert len([p for w in windows for p in w.panes]) == spawns + 1
    assert all(w.name == WORKERS_WINDOW for w in windows if w.id != "@1")
