"""Removing the last worktree takes the empty ``<repo>-worktrees`` folder with it (issue 26,
item 17). Before: ``agent close --remove-worktree`` left an empty ``mytty-demo-worktrees``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mytty.daemon.worktree.gc import gc
from tests.daemon.worktree.test_worktree_gc import World, world  # noqa: F401 - the fixture

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_the_last_removal_drops_the_empty_folder(world: World) -> None:
    first, second = world.make("fix-a"), world.make("fix/b")
    parent = first.parent
    assert parent.name == "proj-worktrees" and second.parent == parent
    (second / "notes.txt").write_text("mine\n")  # untracked: this one is kept
    outcomes = {Path(o.status.entry.path).name: o.removed for o in gc(world.record)}
    assert outcomes == {"fix-a": True, "fix-b": False}
    assert parent.is_dir()  # still holds fix-b

    (second / "notes.txt").unlink()
    assert [o.removed for o in gc(world.record)] == [True]
    assert not parent.exists()


def test_a_folder_holding_something_else_stays(world: World) -> None:
    only = world.make("fix-c")
    (only.parent / "README.txt").write_text("the user's own file\n")
    assert [o.removed for o in gc(world.record)] == [True]
    assert (only.parent / "README.txt").read_text() == "the user's own file\n"
