"""Whether a worktree mytty made may be removed: facts in, a verdict with its reason out.

``mytty worktree gc`` and ``agent close --remove-worktree`` share this one rule, so the two can
never disagree. The facts are gathered elsewhere (git, ``/proc``, mytty's worktree record); this
module only weighs them. It keeps a worktree whenever any fact is unknown: a removal that was
wrong loses work, a removal that was skipped costs nothing.

A worktree may go only when all of these hold:

1. mytty created it (it is in mytty's record, which a reused or foreign path never enters) and
   it is still the same directory (same device and inode as at creation: a directory someone
   re-made at that path is theirs);
2. git still lists it as a worktree of the recorded repository, it is not the main working
   tree, and it is not locked (``git worktree lock``);
3. no live process has its current directory in it;
4. it has no uncommitted changes (untracked files count: they are work too);
5. its tip is merged into the base branch — by ancestry, by patch ids (a rebase or cherry-pick
   merge), by the patch id of the whole branch (a squash merge), or because merging it would not
   change the base's tree — or it is pushed (its tip is on a remote-tracking branch).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Merged(StrEnum):
    """How the branch's work reached the base branch (``none``: it did not, as far as git shows)."""

    ANCESTOR = "ancestor"  # the tip is an ancestor of the base (fast-forward or merge commit)
    REBASED = "rebased"  # every commit has a patch-id twin on the base (rebase / cherry-pick)
    SQUASHED = "squashed"  # the branch's whole diff is one commit on the base (squash merge)
    TREE = "tree"  # merging the tip into the base would leave the base's tree unchanged
    NONE = "none"


class Reason(StrEnum):
    """Why a worktree goes or stays (the wire and ``--json`` spell these)."""

    MERGED = "merged"
    PUSHED = "pushed"
    NOT_CREATED_BY_MYTTY = "not-created-by-mytty"
    REPLACED = "replaced"
    MISSING = "missing"
    NOT_REGISTERED = "not-registered"
    MAIN_WORKTREE = "main-worktree"
    LOCKED = "locked"
    IN_USE = "in-use"
    DIRTY = "dirty"
    UNMERGED = "unmerged"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class WorktreeFacts:
    """What is known about one worktree right now. ``None`` means "could not tell"."""

    recorded: bool  # mytty's record says mytty created this path
    same_directory: bool | None  # device and inode match the ones recorded at creation
    exists: bool
    registered: bool | None  # git of the recorded repository lists the path as a worktree
    is_main: bool
    locked: bool | None
    busy_pids: tuple[int, ...]  # live processes whose cwd is in the worktree
    dirty: bool | None
    merged: Merged | None
    pushed: bool | None
    problem: str | None = None  # why a probe failed, when one did


@dataclass(frozen=True, slots=True)
class Verdict:
    removable: bool
    reason: Reason
    detail: str


def _keep(reason: Reason, detail: str) -> Verdict:
    return Verdict(False, reason, detail)


def judge(facts: WorktreeFacts) -> Verdict:
    """The verdict for one worktree: the first rule it fails, or why it may go."""
    if not facts.recorded:
        return _keep(Reason.NOT_CREATED_BY_MYTTY, "mytty did not create this worktree")
    if not facts.exists:
        return _keep(Reason.MISSING, "the directory is gone")
    if facts.same_directory is None or facts.registered is None or facts.locked is None:
        return _keep(Reason.UNKNOWN, facts.problem or "could not inspect the worktree")
    if not facts.same_directory:
        return _keep(Reason.REPLACED, "the directory was replaced since mytty created it")
    if facts.is_main:
        return _keep(Reason.MAIN_WORKTREE, "this is the repository's main working tree")
    if not facts.registered:
        return _keep(Reason.NOT_REGISTERED, "git no longer lists it as a worktree")
    if facts.locked:
        return _keep(Reason.LOCKED, "the worktree is locked (git worktree unlock to allow)")
    if facts.busy_pids:
        pids = ", ".join(str(pid) for pid in sorted(facts.busy_pids)[:5])
        return _keep(Reason.IN_USE, f"a live process works in it (pid {pids})")
    if facts.dirty is None or facts.merged is None:
        return _keep(Reason.UNKNOWN, facts.problem or "could not read the worktree's git state")
    if facts.dirty:
        return _keep(Reason.DIRTY, "it has uncommitted changes or untracked files")
    if facts.merged is not Merged.NONE:
        return Verdict(True, Reason.MERGED, f"merged into its base ({facts.merged.value})")
    if facts.pushed:
        return Verdict(True, Reason.PUSHED, "its tip is on a remote-tracking branch")
    if facts.pushed is None:
        return _keep(Reason.UNKNOWN, facts.problem or "could not tell whether it is pushed")
    return _keep(Reason.UNMERGED, "it has commits that are neither merged nor pushed")


def archive_ref(branch: str) -> str:
    """Where the tip is kept before removal: ``refs/mytty/archive/<branch>``."""
    return f"refs/mytty/archive/{branch}"
