"""The shortest path through a real controller: list, split with a command, read it back."""

import pytest

from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def test_list_split_read(mytty: Mytty) -> None:
    first = mytty.first_pane()
    created = mytty.ctl("split", first, "--command", "echo smoke-$((40+2))").json
    assert created["type"] == "pane"
    mytty.wait_for_text(created["paneID"], "smoke-42")
    ids = {p["paneID"] for p in mytty.panes()}
    assert {first, created["paneID"]} <= ids
