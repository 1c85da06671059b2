"""``agent close --remove-worktree`` on a real controller: the worker's own worktree goes once
its processes have left it; a dirty one or one mytty did not create stays."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.jobs_support import (
    git,
    job_id,
    new_anchor,
    new_repo,
    pane_of,
    shared_team,  # noqa: F401 - fixture
    spawn,
    standin_in,
)
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def _worker(m: Mytty, repo: Path, branch: str) -> tuple[dict[str, Any], Path]:
    """A live stand-in worker (it waits for more prompts) in a worktree for ``branch``."""
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        f"work on {branch}",
        "--cwd",
        str(repo),
        "--worktree",
        branch,
        "--anchor",
        new_anchor(m),
    )
    run = standin_in(m, pane_of(job), "claude")
    assert os.path.realpath(f"/proc/{run.pid}/cwd") == run.cwd  # the worker lives in it
    return job, Path(run.cwd)


def _close(m: Mytty, job: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = m.ctl("agent", "close", job_id(job), "--remove-worktree").json
    assert reply["type"] == "ok", reply
    return reply


def test_close_removes_the_workers_clean_worktree_and_archives_its_tip(
    shared_team: Mytty,
) -> None:
    m = shared_team
    repo = new_repo(m.root / "wtc-clean" / "proj")
    job, path = _worker(m, repo, "done/x")
    tip = git(path, "rev-parse", "HEAD").strip()
    worktree = _close(m, job)["worktree"]
    assert worktree["removed"] is True, worktree
    assert (worktree["reason"], worktree["archiveRef"]) == ("merged", "refs/mytty/archive/done/x")
    assert worktree["branchDeleted"] is True
    assert not path.exists()
    assert str(path) not in git(repo, "worktree", "list")
    assert git(repo, "rev-parse", "refs/mytty/archive/done/x").strip() == tip


def test_close_keeps_a_dirty_worktree_and_says_why(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wtc-dirty" / "proj")
    job, path = _worker(m, repo, "wip")
    (path / "unsaved.txt").write_text("work in progress\n")
    worktree = _close(m, job)["worktree"]
    assert (worktree["removed"], worktree["reason"]) == (False, "dirty"), worktree
    assert (path / "unsaved.txt").read_text() == "work in progress\n"
    assert str(path) in git(repo, "worktree", "list")
    assert git(repo, "for-each-ref", "refs/mytty") == ""


def test_close_never_touches_a_worktree_mytty_only_reused(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wtc-foreign" / "proj")
    mine = repo.parent / "proj-worktrees" / "theirs"
    git(repo, "worktree", "add", "-q", "-b", "theirs", str(mine))
    job, path = _worker(m, repo, "theirs")
    assert path == mine
    assert _close(m, job)["worktree"] is None
    assert mine.is_dir() and str(mine) in git(repo, "worktree", "list")
