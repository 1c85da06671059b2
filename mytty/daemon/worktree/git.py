"""Git and ``/proc`` facts about one recorded worktree, for :mod:`mytty.core.worktree.safety`.

Every git call goes through :func:`mytty.daemon.worktree.create.run_git` (no inherited ``GIT_DIR`` and
friends, no prompts, a timeout). Repository-wide questions are asked of the shared git
directory recorded at creation (``git -C <common dir>``), so they still work when the
checkout the worktree was made from has moved. A probe that fails leaves its fact ``None``:
the verdict is then "keep".

Merge detection, cheapest first: ancestry; ``git cherry`` (every commit has a patch-id twin on
the base: a rebase or cherry-pick merge); the patch id of the branch's whole diff against the
patch ids of the base's commits since the fork point (a squash merge); ``git merge-tree
--write-tree`` (merging the tip would leave the base's tree as it is: the work is there, however
it got there). Blocking: call from a worker thread.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mytty.core.worktree.record import WorktreeEntry
from mytty.core.worktree.safety import Merged, WorktreeFacts
from mytty.daemon import procfs
from mytty.daemon.worktree.create import GIT_TIMEOUT_SECONDS, TOKEN_FILE, GitResult, run_git


@dataclass(frozen=True, slots=True)
class ListedWorktree:
    """One block of ``git worktree list --porcelain``."""

    path: str
    head: str | None
    branch: str | None  # short name; None when detached
    locked: bool
    main: bool


@dataclass(frozen=True, slots=True)
class Probe:
    """The facts plus what the listing shows (tip, branch, how far from the base)."""

    facts: WorktreeFacts
    tip: str | None
    branch: str | None
    base_ref: str | None
    ahead: int | None
    behind: int | None


def parse_worktree_list(porcelain: str) -> list[ListedWorktree]:
    blocks: list[ListedWorktree] = []
    for index, block in enumerate(porcelain.strip().split("\n\n")):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, _, value = line.partition(" ")
            fields[key] = value
        if "worktree" not in fields:
            continue
        branch = fields.get("branch")
        blocks.append(
            ListedWorktree(
                path=fields["worktree"],
                head=fields.get("HEAD"),
                branch=branch.removeprefix("refs/heads/") if branch else None,
                locked="locked" in fields,
                main=index == 0 and "bare" not in fields,
            )
        )
    return blocks


class Git:
    """``git`` for one repository (its shared git directory)."""

    def __init__(
        self, common_dir: str, *, git: str = "git", timeout: float = GIT_TIMEOUT_SECONDS
    ) -> None:
        self.common_dir = common_dir
        self.git = git
        self.timeout = timeout

    def run(self, *args: str, cwd: str | None = None, stdin: bytes | None = None) -> GitResult:
        return run_git(self.git, ["-C", cwd or self.common_dir, *args], self.timeout, stdin=stdin)

    def out(self, *args: str, cwd: str | None = None) -> str | None:
        result = self.run(*args, cwd=cwd)
        return result.stdout.strip() if result.returncode == 0 else None

    def worktrees(self) -> list[ListedWorktree] | None:
        listing = self.out("worktree", "list", "--porcelain")
        return None if listing is None else parse_worktree_list(listing)

    def commit(self, ref: str) -> str | None:
        return self.out("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")

    def dirty(self, path: str) -> bool | None:
        status = self.run("status", "--porcelain=v1", "-z", "--untracked-files=normal", cwd=path)
        return bool(status.stdout) if status.returncode == 0 else None

    def pushed(self, tip: str) -> bool | None:
        refs = self.run("for-each-ref", "--contains", tip, "--format=%(refname)", "refs/remotes")
        return bool(refs.stdout.strip()) if refs.returncode == 0 else None

    def ahead_behind(self, base: str, tip: str) -> tuple[int, int] | None:
        counts = self.out("rev-list", "--left-right", "--count", f"{base}...{tip}")
        try:
            behind, ahead = (int(n) for n in (counts or "").split())
        except ValueError:
            return None
        return ahead, behind

    def merged(self, base: str, tip: str, ahead: int) -> Merged | None:
        if ahead == 0:
            return Merged.ANCESTOR
        cherry = self.run("cherry", base, tip)
        if cherry.returncode != 0:
            return None
        marks = [line[:1] for line in cherry.stdout.splitlines() if line]
        if marks and all(mark == "-" for mark in marks):
            return Merged.REBASED
        if self._squashed(base, tip):
            return Merged.SQUASHED
        if self._tree_unchanged(base, tip):
            return Merged.TREE
        return Merged.NONE

    def _patch_ids(self, diff: str) -> set[str]:
        ids = self.run("patch-id", "--stable", stdin=os.fsencode(diff))
        return {line.split()[0] for line in ids.stdout.splitlines() if line.strip()}

    def _squashed(self, base: str, tip: str) -> bool:
        fork = self.out("merge-base", base, tip)
        if not fork:
            return False
        whole = self.run("diff", "--binary", fork, tip)
        if whole.returncode != 0 or not whole.stdout:
            return False
        wanted = self._patch_ids(whole.stdout)
        log = self.run(
            "log", "-p", "--binary", "--no-merges", "--format=commit %H", f"{fork}..{base}"
        )
        return bool(wanted) and log.returncode == 0 and bool(wanted & self._patch_ids(log.stdout))

    def _tree_unchanged(self, base: str, tip: str) -> bool:
        merged = self.run("merge-tree", "--write-tree", base, tip)
        base_tree = self.out("rev-parse", f"{base}^{{tree}}")
        # Exit 1 is a conflict; anything else non-zero: a git without --write-tree (< 2.38).
        if merged.returncode != 0 or base_tree is None:
            return False
        lines = merged.stdout.splitlines()
        return bool(lines) and lines[0].strip() == base_tree


def _same_directory(g: Git, entry: WorktreeEntry) -> bool | None:
    """The directory and git's private directory for it are still the ones mytty made."""
    try:
        st = os.stat(entry.path)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    if (st.st_dev, st.st_ino) != (entry.device, entry.inode):
        return False
    private = g.out("rev-parse", "--absolute-git-dir", cwd=entry.path)
    if private is None:
        return None
    try:
        with open(os.path.join(private, TOKEN_FILE), encoding="utf-8") as f:
            return f.read().strip() == entry.token
    except FileNotFoundError:
        return False
    except OSError:
        return None


def probe(entry: WorktreeEntry, *, git: str = "git", proc_root: str = procfs.PROC) -> Probe:
    """Everything :func:`~mytty.core.worktree.safety.judge` needs about ``entry``, right now."""
    g = Git(entry.common_dir, git=git)
    exists = os.path.isdir(entry.path)
    # Asked even for a missing directory: whether git still lists it decides "forget it".
    listed = g.worktrees() if os.path.isdir(entry.common_dir) else None
    real = os.path.realpath(entry.path)
    mine = next((w for w in listed or [] if os.path.realpath(w.path) == real), None)
    main = next((w for w in listed or [] if w.main), None)
    problem = None if listed is not None else "git could not list the worktrees"
    tip = mine.head if mine else None
    branch = mine.branch if mine else None
    base_ref = f"refs/heads/{entry.base}" if entry.base else None
    base = g.commit(base_ref) if base_ref else None
    if base is None and main is not None and main.head:
        base_ref = f"refs/heads/{main.branch}" if main.branch else "HEAD"
        base = main.head  # the base branch is gone or was never known: the main checkout's
    dirty = merged = pushed = None
    ahead = behind = None
    if mine is not None and tip and exists:
        dirty = g.dirty(entry.path)
        pushed = g.pushed(tip)
        counts = g.ahead_behind(base, tip) if base else None
        if counts is not None and base is not None:
            ahead, behind = counts
            merged = g.merged(base, tip, ahead)
        if merged is None:
            problem = f"could not compare {entry.path} with its base branch {entry.base or '?'}"
    facts = WorktreeFacts(
        recorded=True,
        same_directory=_same_directory(g, entry) if exists else False,
        exists=exists,
        registered=None if listed is None else mine is not None,
        is_main=mine is not None and mine.main,
        locked=mine.locked if mine is not None else (False if listed is not None else None),
        busy_pids=tuple(procfs.pids_working_in(entry.path, proc_root=proc_root)) if exists else (),
        dirty=dirty,
        merged=merged,
        pushed=pushed,
        problem=problem,
    )
    return Probe(facts, tip, branch, base_ref, ahead, behind)
