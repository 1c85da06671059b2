"""``agent spawn --worktree``: create, reuse, existing branches, every refusal (semantics §5.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.jobs_support import (
    git,
    new_anchor,
    new_repo,
    pane_of,
    shared_team,  # noqa: F401 - fixture
    spawn,
    spawn_code,
    standin_in,
)
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

QUIT = "\n@standin: exit"

BAD_BRANCHES = [
    "",
    "-rf",
    ".hidden",
    "/abs",
    "trailing/",
    "trailing.",
    "x.lock",
    "a..b",
    "a//b",
    "with space",
    "semi;colon",
    "quote'd",
    "tilde~1",
    "caret^",
    "colon:x",
    "star*",
    "ü-umlaut",
    "b" * 101,
]


def _spawn_in(m: Mytty, cwd: Path, branch: str, *extra: str) -> str:
    """Spawn a worker on ``branch`` from ``cwd``; return the directory the worker started in."""
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        f"work on {branch}{QUIT}",
        "--cwd",
        str(cwd),
        "--worktree",
        branch,
        "--anchor",
        new_anchor(m),
        *extra,
    )
    return standin_in(m, pane_of(job), "claude").cwd


def _worktrees(repo: Path) -> list[str]:
    out = git(repo, "worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")]


def test_worktree_is_created_next_to_the_repository(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wt-create" / "proj")
    (repo / "sub").mkdir()
    # The base repository is resolved from the cwd, even a subdirectory of it.
    cwd = _spawn_in(m, repo / "sub", "feat/x")
    expected = repo.parent / "proj-worktrees" / "feat-x"
    assert cwd == str(expected)
    assert expected.is_dir()
    assert git(expected, "rev-parse", "--abbrev-ref", "HEAD").strip() == "feat/x"
    assert git(expected, "rev-parse", "HEAD") == git(repo, "rev-parse", "HEAD")  # from HEAD
    assert str(expected) in _worktrees(repo)
    assert git(repo, "status", "--porcelain") == ""  # invisible to the main checkout


def test_worktree_is_reused_whatever_it_has_checked_out(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wt-reuse" / "proj")
    first = _spawn_in(m, repo, "topic")
    (Path(first) / "uncommitted.txt").write_text("work in progress\n")
    git(first, "checkout", "-q", "-b", "moved-on")
    second = _spawn_in(m, repo, "topic")
    assert second == first
    assert (Path(second) / "uncommitted.txt").read_text() == "work in progress\n"
    assert git(second, "rev-parse", "--abbrev-ref", "HEAD").strip() == "moved-on"
    assert len(_worktrees(repo)) == 2


def test_existing_local_branch_is_checked_out(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wt-existing" / "proj")
    git(repo, "checkout", "-q", "-b", "existing")
    (repo / "on-branch.txt").write_text("only on the branch\n")
    git(repo, "add", "on-branch.txt")
    git(repo, "commit", "-q", "-m", "branch work")
    branch_head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    cwd = Path(_spawn_in(m, repo, "existing"))
    assert cwd == repo.parent / "proj-worktrees" / "existing"
    assert git(cwd, "rev-parse", "--abbrev-ref", "HEAD").strip() == "existing"
    assert git(cwd, "rev-parse", "HEAD") == branch_head
    assert (cwd / "on-branch.txt").exists()


def test_worktree_default_base_is_the_anchor_panes_directory(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wt-anchor" / "proj")
    job = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        f"anchored{QUIT}",
        "--worktree",
        "from-anchor",
        "--anchor",
        new_anchor(m, repo),
    )
    expected = repo.parent / "proj-worktrees" / "from-anchor"
    assert standin_in(m, pane_of(job), "claude").cwd == str(expected)


@pytest.mark.parametrize("branch", BAD_BRANCHES)
def test_invalid_branch_refused_by_the_cli(shared_team: Mytty, branch: str) -> None:
    m = shared_team
    # The socket is unreachable: the CLI must refuse before connecting.
    result = m.ctl(
        "agent",
        "spawn",
        "--provider",
        "claude",
        "--task",
        "x",
        "--worktree",
        branch,
        "--anchor",
        m.first_pane(),
        env={"MYTTY_CONTROL_SOCKET": str(m.root / "no-such.sock")},
    )
    assert result.code == "invalid-worktree-branch"


@pytest.mark.parametrize("branch", BAD_BRANCHES)
def test_invalid_branch_refused_by_the_controller(shared_team: Mytty, branch: str) -> None:
    m = shared_team
    repo = m.root / "wt-server-bad" / "proj"
    if not repo.exists():
        new_repo(repo)
    before = len(m.panes())
    reply = m.request(
        {
            "type": "spawnAgent",
            "anchorPaneID": m.first_pane(),
            "direction": "auto",
            "provider": "claude",
            "task": "x",
            "cwd": str(repo),
            "worktreeBranch": branch,
        }
    )
    assert (reply["type"], reply["code"]) == ("failure", "invalid-worktree-branch"), reply
    assert len(m.panes()) == before
    assert not (repo.parent / "proj-worktrees").exists()


@pytest.mark.parametrize("branch", ["a", "feat/x-1", "v1.2_rc", "A/B/C", "x" * 100])
def test_valid_unusual_branch_names_are_accepted(shared_team: Mytty, branch: str) -> None:
    m = shared_team
    repo = m.root / "wt-valid" / "proj"
    if not repo.exists():
        new_repo(repo)
    cwd = _spawn_in(m, repo, branch)
    assert cwd == str(repo.parent / "proj-worktrees" / branch.replace("/", "-"))


def test_not_a_git_repository(shared_team: Mytty) -> None:
    m = shared_team
    plain = m.root / "wt-plain"
    plain.mkdir()
    anchor = new_anchor(m)
    before = len(m.panes())
    assert (
        spawn_code(
            m,
            "--provider",
            "claude",
            "--task",
            "x",
            "--cwd",
            str(plain),
            "--worktree",
            "feat",
            "--anchor",
            anchor,
        )
        == "not-a-git-repository"
    )
    assert len(m.panes()) == before
    assert list(m.root.glob("wt-plain-worktrees")) == []


def test_worktree_path_taken_by_something_else(shared_team: Mytty) -> None:
    m = shared_team
    repo = new_repo(m.root / "wt-taken" / "proj")
    squatter = repo.parent / "proj-worktrees" / "feat-y"
    squatter.mkdir(parents=True)
    (squatter / "keep.txt").write_text("not a worktree\n")
    assert (
        spawn_code(
            m,
            "--provider",
            "claude",
            "--task",
            "x",
            "--cwd",
            str(repo),
            "--worktree",
            "feat/y",
            "--anchor",
            new_anchor(m),
        )
        == "worktree-create-failed"
    )
    assert (squatter / "keep.txt").read_text() == "not a worktree\n"  # left alone
    assert _worktrees(repo) == [str(repo)]
    assert "feat/y" not in git(repo, "branch", "--list", "feat/y")
