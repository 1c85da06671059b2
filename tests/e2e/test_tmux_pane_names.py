"""Every command that takes a pane id takes tmux's name for it too (issue 26, item 5).

Before: ``read mytty:0.1`` (what ``ls`` and ``attention`` print), ``read %1``, ``focus @1`` and
``read '$1'`` were all ``pane-not-found``.
"""

from __future__ import annotations

import pytest

from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


def test_tmux_names_reach_the_same_pane(mytty: Mytty) -> None:
    first = mytty.first_pane()
    second = mytty.ctl("split", first, "right").json["paneID"]
    tmux_id = mytty.tmux_id(second)
    location = mytty.tmux(
        "display-message", "-p", "-t", tmux_id, "#{session_name}:#{window_index}.#{pane_index}"
    ).strip()
    window, session = mytty.tmux(
        "display-message", "-p", "-t", tmux_id, "#{window_id} #{session_id}"
    ).split()

    mytty.ctl("send", location, "echo via-location", "--enter").ok()
    mytty.wait_for_text(second, "via-location")
    for name in (location, tmux_id):
        assert "via-location" in mytty.ctl("read", name).json["content"]["text"]

    # @N and $N: the active pane there, as tmux reads a target pane.
    mytty.ctl("focus", first).ok()
    assert mytty.ctl("read", window).json["content"]["paneID"] == first
    mytty.ctl("focus", tmux_id).ok()
    wait_until(
        lambda: mytty.tmux("display-message", "-p", "-t", tmux_id, "#{pane_active}").strip() == "1",
        message="the pane focused by its tmux id",
    )
    assert mytty.ctl("read", session).json["content"]["paneID"] == second
    mytty.ctl("focus", window).ok()

    mytty.ctl("status", "named", "--pane", location).ok()
    listed = {p["paneID"]: p for p in mytty.panes()}
    assert listed[second].get("statusNote") == "named"

    missing = mytty.ctl("read", "base:0.9")
    assert missing.code == "pane-not-found"
    assert "base:0.9" in missing.stderr and "tmux" in missing.stderr


def test_explain_takes_a_tmux_name(mytty: Mytty) -> None:
    first = mytty.first_pane()
    tmux_id = mytty.tmux_id(first)
    assert mytty.ctl("explain", tmux_id).json["paneID"] == first
    assert mytty.ctl("explain", "nosuch:0.0").code == "pane-not-found"
