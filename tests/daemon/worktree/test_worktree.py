"""resolve_worktree against real temporary git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.validation import validate_worktree_branch
from mytty.daemon.worktree.create import resolve_worktree, worktree_path
from tests.support.git_repo import git, git_identity  # noqa: F401 - autouse fixture

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("hi\n")
    (root / "sub").mkdir()
    (root / "sub" / "f").write_text("x\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


def test_worktree_path_layout() -> None:
    assert worktree_path("/src/proj", "feat/x") == "/src/proj-worktrees/feat-x"
    assert worktree_path("/src/proj/", "a/b/c") == "/src/proj-worktrees/a-b-c"
    assert worktree_path("/src/proj", "plain") == "/src/proj-worktrees/plain"


def test_creates_a_new_branch_from_head_next_to_the_repo(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    path = resolve_worktree(str(repo / "sub"), "feat/x")
    assert path == str(repo.parent / "proj-worktrees" / "feat-x")
    assert Path(path, "README").read_text() == "hi\n"
    assert git(Path(path), "rev-parse", "--abbrev-ref", "HEAD") == "feat/x"
    assert git(Path(path), "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""


def test_checks_out_an_existing_local_branch(repo: Path) -> None:
    git(repo, "branch", "existing")
    (repo / "README").write_text("changed\n")
    git(repo, "commit", "-q", "-am", "second")
    path = resolve_worktree(str(repo), "existing")
    assert git(Path(path), "rev-parse", "--abbrev-ref", "HEAD") == "existing"
    assert Path(path, "README").read_text() == "hi\n"  # the branch's content, not HEAD's


def test_reuses_a_registered_worktree_whatever_it_has_checked_out(repo: Path) -> None:
    first = resolve_worktree(str(repo), "feat/x")
    git(Path(first), "checkout", "-q", "-b", "elsewhere")
    Path(first, "wip").write_text("uncommitted\n")
    assert resolve_worktree(str(repo), "feat/x") == first
    assert Path(first, "wip").exists()
    assert git(Path(first), "rev-parse", "--abbrev-ref", "HEAD") == "elsewhere"
    # from inside a worktree, that worktree is the repository root (as in the original)
    nested = resolve_worktree(first, "other")
    assert nested == str(Path(first).parent / "feat-x-worktrees" / "other")


def test_reuse_compares_resolved_paths(repo: Path, tmp_path: Path) -> None:
    first = resolve_worktree(str(repo), "b1")
    link = tmp_path / "link-to-proj"
    link.symlink_to(repo)
    # git resolves the symlink for --show-toplevel, so the same worktree is found again
    again = resolve_worktree(str(link), "b1")
    assert os.path.realpath(again) == os.path.realpath(first)


def test_existing_unregistered_path_is_refused(repo: Path) -> None:
    target = repo.parent / "proj-worktrees" / "taken"
    target.mkdir(parents=True)
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(repo), "taken")
    assert err.value.code == ErrorCode.WORKTREE_CREATE_FAILED
    assert "already exists" in err.value.message


def test_registered_worktree_with_a_missing_directory_is_reported(repo: Path) -> None:
    path = resolve_worktree(str(repo), "gone")
    shutil.rmtree(path)
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(repo), "gone")
    assert err.value.code == ErrorCode.WORKTREE_CREATE_FAILED
    assert "worktree prune" in err.value.message


def test_git_failure_is_reported_with_its_stderr(repo: Path) -> None:
    # "main" is checked out in the main worktree, so git refuses a second checkout
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(repo), "main")
    assert err.value.code == ErrorCode.WORKTREE_CREATE_FAILED
    assert "main" in err.value.message
    assert "fatal:" in err.value.message


def test_not_a_git_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(plain), "feat")
    assert err.value.code == ErrorCode.NOT_A_GIT_REPOSITORY
    assert str(plain) in err.value.message


def test_missing_directory_is_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(tmp_path / "nope"), "feat")
    assert err.value.code == ErrorCode.NOT_A_GIT_REPOSITORY


def test_missing_git_binary(repo: Path) -> None:
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(repo), "feat", git="/nonexistent/git")
    assert err.value.code == ErrorCode.NOT_A_GIT_REPOSITORY
    assert "couldn't run" in err.value.message


@pytest.mark.parametrize("branch", ["-b", "../x", "a..b", "x.lock", "a b", ""])
def test_invalid_branch_is_rejected_before_running_git(repo: Path, branch: str) -> None:
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(repo), branch, git="/nonexistent/git")
    assert err.value.code == ErrorCode.INVALID_WORKTREE_BRANCH


def test_a_hanging_git_is_stopped_at_the_timeout(repo: Path, tmp_path: Path) -> None:
    # A git that would never finish: only the timeout can end the call (the suite's per-test
    # timeout fails it otherwise), and the git it started must be gone afterwards.
    pid_file = tmp_path / "git.pid"
    slow = tmp_path / "slow-git"
    slow.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 100000\n")
    slow.chmod(0o755)
    with pytest.raises(MyttyError) as err:
        resolve_worktree(str(repo), "feat", git=str(slow), timeout=0.3)
    assert err.value.code == ErrorCode.NOT_A_GIT_REPOSITORY
    assert "timed out" in err.value.message
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped and reaped, not left running


def test_git_location_variables_are_ignored(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    path = resolve_worktree(str(repo), "envcheck")
    assert path == str(repo.parent / "proj-worktrees" / "envcheck")


# Branch names our rule accepts and whose components git also likes (git additionally refuses
# a component that starts with "." or ends with ".lock") really do work with git.
branch_chars = st.text("abcXYZ019._-/", min_size=1, max_size=20)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(branch_chars)
def test_accepted_branches_are_valid_for_git(repo: Path, branch: str) -> None:
    if validate_worktree_branch(branch) is not None:
        return
    if any(c.startswith(".") or c.endswith(".lock") for c in branch.split("/")):
        return
    result = subprocess.run(
        ["git", "check-ref-format", "--branch", branch], capture_output=True, check=False
    )
    assert result.returncode == 0, branch
