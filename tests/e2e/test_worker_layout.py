"""Where `agent spawn --direction auto` puts workers (core.layout.place_worker), in real tmux.

The lead keeps a usable pane: the first worker takes half of it, later ones share the rest of
the lead's tab while they stay at least 80 × 15, then they go to a `workers` window right after
the lead's; a zoomed lead is never unzoomed.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.jobs_support import (
    new_anchor,
    pane_of,
    shared_team,  # noqa: F401 - fixture
    spawn_reply,
    tmux_format,
)
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def _spawn(m: Mytty, anchor: str, n: int) -> dict[str, Any]:
    return spawn_reply(
        m, "--provider", "claude", "--task", f"worker {n}", "--label", f"w{n}", "--anchor", anchor
    )


def _current_window(m: Mytty, pane: str) -> str:
    session = tmux_format(m, pane, "#{session_name}")
    return m.tmux("display-message", "-p", "-t", f"{session}:", "#{window_id}").strip()


def _size(m: Mytty, pane: str) -> tuple[int, int]:
    width, height = tmux_format(m, pane, "#{pane_width} #{pane_height}").split()
    return int(width), int(height)


def test_three_workers_leave_the_lead_half_its_tab(shared_team: Mytty) -> None:
    m = shared_team
    lead = new_anchor(m, width=200, height=60)
    lead_window = tmux_format(m, lead, "#{window_id}")
    lead_index = int(tmux_format(m, lead, "#{window_index}"))
    current_before = _current_window(m, lead)
    replies = [_spawn(m, lead, n) for n in (1, 2, 3)]
    panes = [pane_of(r["job"]) for r in replies]
    assert _size(m, lead) == (100, 60)  # the issue: 50 columns after three workers
    for pane in panes[:2]:
        assert tmux_format(m, pane, "#{window_id}") == lead_window
        width, height = _size(m, pane)
        assert width >= 80 and height >= 15
    assert all("placement" not in r for r in replies[:2])
    # The third would have been smaller than 80 × 15: it opened the lead's `workers` window.
    third = panes[2]
    assert tmux_format(m, third, "#{window_name}") == "workers"
    assert int(tmux_format(m, third, "#{window_index}")) == lead_index + 1
    assert "workers" in replies[2]["placement"] and "room" in replies[2]["placement"]
    # The session's current window is unchanged: no worker window took the focus.
    assert _current_window(m, lead) == current_before
    # The next worker joins that window rather than opening yet another one.
    fourth = pane_of(_spawn(m, lead, 4)["job"])
    assert tmux_format(m, fourth, "#{window_id}") == tmux_format(m, third, "#{window_id}")


def test_a_zoomed_lead_is_never_unzoomed(shared_team: Mytty) -> None:
    m = shared_team
    lead = new_anchor(m, width=200, height=60)
    first = pane_of(_spawn(m, lead, 1)["job"])
    m.tmux("resize-pane", "-Z", "-t", m.tmux_id(lead))
    assert tmux_format(m, lead, "#{window_zoomed_flag}") == "1"
    reply = _spawn(m, lead, 2)
    worker = pane_of(reply["job"])
    assert tmux_format(m, lead, "#{window_zoomed_flag}") == "1"  # still zoomed
    assert _size(m, lead) == (200, 60)
    assert tmux_format(m, worker, "#{window_name}") == "workers"
    assert tmux_format(m, worker, "#{window_id}") != tmux_format(m, first, "#{window_id}")
    assert "zoomed" in reply["placement"]
