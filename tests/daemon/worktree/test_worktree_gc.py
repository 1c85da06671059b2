"""``mytty worktree gc`` over real git repositories: only the safe worktrees go.

One table of cases, each a worktree made by ``resolve_worktree`` (as ``agent spawn --worktree``
makes it) and then put into one state; one gc over all of them; then the survivors are checked
against ``git worktree list``, and every removed one against its archive ref.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mytty.core.worktree.record import job_line
from mytty.core.worktree.safety import Merged
from mytty.daemon.worktree.create import resolve_worktree, worktree_path
from mytty.daemon.worktree.gc import gc, list_worktrees, orphaned_worktrees, worktree_of_job
from mytty.daemon.worktree.record_file import WorktreeRecord
from tests.support.git_repo import git, git_identity  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def commit(cwd: Path, name: str, text: str) -> str:
    (cwd / name).write_text(text)
    git(cwd, "add", name)
    git(cwd, "commit", "-q", "-m", f"{name}: {text.strip()}")
    return git(cwd, "rev-parse", "HEAD")


@dataclass
class World:
    repo: Path
    record: WorktreeRecord
    remote: Path
    busy: list[subprocess.Popen[bytes]]

    def make(self, branch: str) -> Path:
        return Path(resolve_worktree(str(self.repo), branch, record=self.record))


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    repo = tmp_path / "proj"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "README", "hi\n")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    w = World(repo, WorktreeRecord(tmp_path / "home-mytty" / "worktrees.jsonl"), remote, [])
    w.record.path.parent.mkdir()
    yield w
    for proc in w.busy:
        proc.kill()
        proc.wait()


def _clean(w: World, wt: Path) -> None:
    pass  # made, never touched


def _dirty(w: World, wt: Path) -> None:
    (wt / "README").write_text("changed\n")


def _untracked(w: World, wt: Path) -> None:
    (wt / "notes.txt").write_text("mine\n")


def _unmerged(w: World, wt: Path) -> None:
    commit(wt, "feature", "work\n")


def _merged(w: World, wt: Path) -> None:
    commit(wt, "feature-m", "work\n")
    git(w.repo, "merge", "-q", "--no-ff", "-m", "merge", "case-merged")


def _squash_merged(w: World, wt: Path) -> None:
    commit(wt, "sq1", "one\n")
    commit(wt, "sq2", "two\n")
    commit(w.repo, "other-sq", "main moved on\n")
    git(w.repo, "merge", "-q", "--squash", "case-squash-merged")
    git(w.repo, "commit", "-q", "-m", "squashed")


def _rebased(w: World, wt: Path) -> None:
    first = commit(wt, "rb1", "one\n")
    second = commit(wt, "rb2", "two\n")
    commit(w.repo, "other-rb", "main moved on\n")
    # "Rebase and merge": the same patches replayed on main as new commits.
    git(w.repo, "cherry-pick", first, second)


def _pushed(w: World, wt: Path) -> None:
    commit(wt, "pushed", "work\n")
    git(wt, "push", "-q", "origin", "case-pushed")


def _busy(w: World, wt: Path) -> None:
    (wt / "deep").mkdir()
    proc = subprocess.Popen(["sleep", "60"], cwd=wt / "deep")
    w.busy.append(proc)


def _locked(w: World, wt: Path) -> None:
    git(w.repo, "worktree", "lock", str(wt))


def _replaced(w: World, wt: Path) -> None:
    # The user removed mytty's worktree and made their own at the same path.
    git(w.repo, "worktree", "remove", str(wt))
    git(w.repo, "worktree", "add", "-q", str(wt), "case-replaced")


@dataclass(frozen=True)
class Case:
    name: str
    setup: Callable[[World, Path], None]
    removed: bool
    reason: str
    merged: Merged | None = None


CASES = [
    Case("clean", _clean, True, "merged", Merged.ANCESTOR),
    Case("dirty", _dirty, False, "dirty"),
    Case("untracked", _untracked, False, "dirty"),
    Case("unmerged", _unmerged, False, "unmerged", Merged.NONE),
    Case("merged", _merged, True, "merged", Merged.ANCESTOR),
    Case("squash-merged", _squash_merged, True, "merged", Merged.SQUASHED),
    Case("rebased", _rebased, True, "merged", Merged.REBASED),
    Case("pushed", _pushed, True, "pushed", Merged.NONE),
    Case("busy", _busy, False, "in-use"),
    Case("locked", _locked, False, "locked"),
    Case("replaced", _replaced, False, "replaced"),
]


def listed_paths(repo: Path) -> set[str]:
    out = git(repo, "worktree", "list", "--porcelain")
    return {
        os.path.realpath(line.removeprefix("worktree "))
        for line in out.splitlines()
        if line.startswith("worktree ")
    }


def test_gc_removes_only_the_safe_worktrees_and_archives_each(world: World) -> None:
    made: dict[str, tuple[Path, str]] = {}
    for case in CASES:
        wt = world.make(f"case-{case.name}")
        case.setup(world, wt)
        made[case.name] = (wt, git(wt, "rev-parse", "HEAD"))
    # A foreign worktree at the very path mytty would use, made by the user and then reused by
    # a spawn: it never enters the record.
    foreign = Path(worktree_path(str(world.repo), "case-foreign"))
    git(world.repo, "worktree", "add", "-q", "-b", "case-foreign", str(foreign))
    assert world.make("case-foreign") == foreign

    before = listed_paths(world.repo)
    dry = {Path(r.status.entry.path).name: r for r in gc(world.record, dry_run=True)}
    assert "case-foreign" not in dry
    assert all(not r.removed for r in dry.values())
    assert listed_paths(world.repo) == before  # the dry run changed nothing
    assert git(world.repo, "for-each-ref", "refs/mytty") == ""

    outcomes = {Path(r.status.entry.path).name: r for r in gc(world.record)}

    assert set(outcomes) == {f"case-{c.name}" for c in CASES}
    survivors = listed_paths(world.repo)
    for case in CASES:
        wt, tip = made[case.name]
        outcome = outcomes[f"case-{case.name}"]
        assert outcome.removed is case.removed, (case.name, outcome.reason, outcome.detail)
        assert outcome.reason == case.reason, (case.name, outcome.detail)
        assert dry[f"case-{case.name}"].status.verdict.removable is case.removed
        if case.merged is not None:
            assert outcome.status.probe.facts.merged is case.merged, case.name
        real = os.path.realpath(wt)
        assert (real in survivors) is not case.removed, case.name
        assert os.path.isdir(wt) is not case.removed, case.name
        if case.removed:
            archived = git(world.repo, "rev-parse", f"refs/mytty/archive/case-{case.name}")
            assert archived == tip and outcome.archive == f"refs/mytty/archive/case-{case.name}"
            assert outcome.branch_deleted
            assert git(world.repo, "branch", "--list", f"case-{case.name}") == ""
        else:
            assert git(world.repo, "rev-parse", f"case-{case.name}") == tip
    assert os.path.realpath(foreign) in survivors
    assert os.path.realpath(world.repo) in survivors
    # What is left in the record is exactly the kept worktrees.
    assert {Path(s.entry.path).name for s in list_worktrees(world.record)} == {
        f"case-{c.name}" for c in CASES if not c.removed
    }


def test_an_existing_archive_is_never_overwritten(world: World) -> None:
    wt = world.make("again")
    first_tip = git(wt, "rev-parse", "HEAD")
    git(world.repo, "update-ref", "refs/mytty/archive/again", first_tip)
    commit(world.repo, "x", "moved\n")
    git(world.repo, "update-ref", "refs/mytty/archive/again", git(world.repo, "rev-parse", "HEAD"))
    (outcome,) = gc(world.record)
    assert outcome.removed and outcome.archive == "refs/mytty/archive/again-2"
    assert git(world.repo, "rev-parse", "refs/mytty/archive/again-2") == first_tip


def test_list_shows_jobs_dirty_and_distance(world: World) -> None:
    wt = world.make("feat/list")
    commit(wt, "a", "1\n")
    commit(wt, "b", "2\n")
    commit(world.repo, "c", "3\n")
    (wt / "a").write_text("edited\n")
    world.record.append(job_line(str(wt), "JOB-1", 0.0))
    (status,) = list_worktrees(world.record)
    shown = status.to_json()
    assert shown["jobs"] == ["JOB-1"] and shown["branch"] == "feat/list"
    assert (shown["ahead"], shown["behind"], shown["dirty"]) == (2, 1, True)
    assert shown["reason"] == "dirty" and shown["base"] == "refs/heads/main"
    assert worktree_of_job(world.record, "JOB-1") is not None
    assert worktree_of_job(world.record, "JOB-2") is None
    assert [s.entry.path for s in orphaned_worktrees(world.record)] == [str(wt)]


def test_a_worktree_removed_by_hand_is_forgotten_one_git_still_lists_is_kept(
    world: World,
) -> None:
    gone = world.make("by-hand")
    git(world.repo, "worktree", "remove", str(gone))
    pruned_later = world.make("deleted-dir")
    shutil.rmtree(pruned_later)  # git still lists it (prunable)
    dry = {Path(r.status.entry.path).name: r for r in gc(world.record, dry_run=True)}
    assert {r.reason for r in dry.values()} == {"missing"}
    outcomes = {Path(r.status.entry.path).name: r for r in gc(world.record)}
    assert not any(r.removed for r in outcomes.values())
    assert "forgets" in outcomes["by-hand"].detail
    assert [Path(s.entry.path).name for s in list_worktrees(world.record)] == ["deleted-dir"]
    assert git(world.repo, "for-each-ref", "refs/mytty") == ""
