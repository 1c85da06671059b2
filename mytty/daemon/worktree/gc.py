"""List and clean up the worktrees mytty created: ``mytty worktree list|gc`` and
``agent close --remove-worktree``.

Only worktrees in mytty's record are ever looked at (a foreign or reused path is not in it).
Each is probed (:mod:`mytty.daemon.worktree.git`) and judged
(:func:`mytty.core.worktree.safety.judge`); a removable one is removed in this order, each step
only if the one before it worked:

1. probe and judge again, right before touching anything;
2. keep the tip under ``refs/mytty/archive/<branch>`` (``-2``, ``-3``… when that name already
   keeps another commit), created with "must not exist" so no archive is ever overwritten;
3. ``git worktree remove`` *without* ``--force``: git itself refuses a tree that became dirty;
4. delete the branch only when mytty created it and it still points at the archived tip;
5. append ``removed`` to the record.

Blocking (git, /proc, the record file): the controller calls it from a worker thread.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from mytty.core.worktree.record import WorktreeEntry, removed_line
from mytty.core.worktree.safety import Reason, Verdict, archive_ref, judge
from mytty.daemon import procfs
from mytty.daemon.worktree.git import Git, Probe, probe
from mytty.daemon.worktree.record_file import WorktreeRecord

#: How many numbered archive names are tried before giving up (and keeping the worktree).
_MAX_ARCHIVE_SUFFIX = 50


@dataclass(frozen=True, slots=True)
class WorktreeStatus:
    """One recorded worktree as ``mytty worktree list`` shows it."""

    entry: WorktreeEntry
    probe: Probe
    verdict: Verdict

    def to_json(self) -> dict[str, object]:
        facts = self.probe.facts
        return {
            "path": self.entry.path,
            "repo": self.entry.repo,
            "branch": self.probe.branch or self.entry.branch,
            "base": self.probe.base_ref,
            "jobs": list(self.entry.jobs),
            "tip": self.probe.tip,
            "exists": facts.exists,
            "dirty": facts.dirty,
            "ahead": self.probe.ahead,
            "behind": self.probe.behind,
            "merged": facts.merged.value if facts.merged is not None else None,
            "pushed": facts.pushed,
            "busyPids": list(facts.busy_pids),
            "removable": self.verdict.removable,
            "reason": self.verdict.reason.value,
            "detail": self.verdict.detail,
        }


@dataclass(frozen=True, slots=True)
class Removal:
    """What happened to one worktree (``removed`` False: it was kept, ``reason`` says why)."""

    status: WorktreeStatus
    removed: bool
    reason: str
    detail: str
    archive: str | None = None
    branch_deleted: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            **self.status.to_json(),
            "removed": self.removed,
            "reason": self.reason,
            "detail": self.detail,
            "archiveRef": self.archive,
            "branchDeleted": self.branch_deleted,
        }


def status_of(entry: WorktreeEntry, *, proc_root: str = procfs.PROC) -> WorktreeStatus:
    found = probe(entry, proc_root=proc_root)
    return WorktreeStatus(entry, found, judge(found.facts))


def list_worktrees(record: WorktreeRecord, *, proc_root: str = procfs.PROC) -> list[WorktreeStatus]:
    """Every worktree mytty created and has not removed, with its facts and verdict."""
    return [status_of(entry, proc_root=proc_root) for entry in record.entries()]


def orphaned_worktrees(
    record: WorktreeRecord, *, proc_root: str = procfs.PROC
) -> list[WorktreeStatus]:
    """Worktrees mytty created that are still there but nobody works in (for ``mytty doctor``).

    Each carries its verdict: ``removable`` ones are what ``mytty worktree gc`` would remove.
    """
    return [
        status
        for status in list_worktrees(record, proc_root=proc_root)
        if status.probe.facts.exists and not status.probe.facts.busy_pids
    ]


def _archive(git: Git, branch: str, tip: str) -> str | None:
    """Create an archive ref for ``tip``; its name, or None when none could be made."""
    base = archive_ref(branch)
    for n in range(1, _MAX_ARCHIVE_SUFFIX + 1):
        name = base if n == 1 else f"{base}-{n}"
        existing = git.commit(name)
        if existing == tip:
            return name  # already kept (an earlier gc of the same tip)
        if existing is not None:
            continue
        # "" as the old value: only if the ref does not exist yet (never overwrite an archive).
        if git.run("update-ref", name, tip, "").returncode == 0 and git.commit(name) == tip:
            return name
    return None


def remove_worktree(
    record: WorktreeRecord, entry: WorktreeEntry, *, proc_root: str = procfs.PROC
) -> Removal:
    """Remove one recorded worktree if the rules allow it (see the module docstring)."""
    status = status_of(entry, proc_root=proc_root)
    facts = status.probe.facts
    if status.verdict.reason is Reason.MISSING and facts.registered is False:
        # Gone from disk and from git (removed by hand): nothing to remove, so forget it.
        try:
            record.append(removed_line(entry.path, None, None, time.time()))
        except OSError:
            pass
        return Removal(
            status,
            False,
            Reason.MISSING.value,
            "the directory is gone and git no longer lists it; mytty forgets it",
        )
    if not status.verdict.removable:
        return Removal(status, False, status.verdict.reason.value, status.verdict.detail)
    tip = status.probe.tip
    git = Git(entry.common_dir)
    branch = status.probe.branch or entry.branch
    if not tip:
        return Removal(status, False, Reason.UNKNOWN.value, "the worktree's tip is unknown")
    archive = _archive(git, branch, tip)
    if archive is None:
        return Removal(
            status, False, "archive-failed", f"could not create {archive_ref(branch)} for {tip}"
        )
    removed = git.run("worktree", "remove", entry.path)
    if removed.returncode != 0:
        return Removal(
            status,
            False,
            "remove-failed",
            f"git worktree remove refused: {removed.stderr or 'no reason given'}",
            archive=archive,
        )
    still_listed = any(
        os.path.realpath(w.path) == os.path.realpath(entry.path) for w in git.worktrees() or []
    )
    if still_listed:
        return Removal(
            status, False, "remove-failed", "git still lists the worktree", archive=archive
        )
    branch_deleted = False
    if entry.new_branch and status.probe.branch == entry.branch:
        # Only the branch mytty made, and only while it is exactly the archived tip.
        deleted = git.run("update-ref", "-d", f"refs/heads/{entry.branch}", tip)
        branch_deleted = deleted.returncode == 0
    try:
        record.append(removed_line(entry.path, archive, tip, time.time()))
    except OSError:
        pass  # the next probe finds the directory missing and keeps its hands off
    _drop_empty_parent(entry.path)
    return Removal(
        status,
        True,
        status.verdict.reason.value,
        f"{status.verdict.detail}; tip kept as {archive}",
        archive=archive,
        branch_deleted=branch_deleted,
    )


def _drop_empty_parent(path: str) -> None:
    """Remove ``<repo>-worktrees`` once its last worktree went (``agent spawn --worktree``
    made it); ``rmdir`` takes an empty directory only, so anything else in it keeps it."""
    parent = os.path.dirname(os.path.normpath(path))
    if os.path.basename(parent).endswith("-worktrees"):
        try:
            os.rmdir(parent)
        except OSError:
            pass  # not empty (another worktree, a file of the user's), or already gone


def gc(
    record: WorktreeRecord, *, dry_run: bool = False, proc_root: str = procfs.PROC
) -> list[Removal]:
    """Remove every recorded worktree the rules allow; ``dry_run`` only says what would go."""
    outcomes: list[Removal] = []
    for entry in record.entries():
        if dry_run:
            status = status_of(entry, proc_root=proc_root)
            outcomes.append(
                Removal(status, False, status.verdict.reason.value, status.verdict.detail)
            )
        else:
            outcomes.append(remove_worktree(record, entry, proc_root=proc_root))
    return outcomes


def worktree_of_job(record: WorktreeRecord, job_id: str) -> WorktreeEntry | None:
    """The recorded worktree a job ran in (the newest, should there be several)."""
    found = [entry for entry in record.entries() if job_id in entry.jobs]
    return found[-1] if found else None
