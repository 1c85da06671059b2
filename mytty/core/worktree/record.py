"""mytty's record of the worktrees it created: one JSON object per line, append-only.

``agent spawn --worktree`` appends a ``created`` line when (and only when) it ran ``git worktree
add`` itself; a path it merely reused is never recorded, so nothing mytty did not make can ever
be cleaned up by it. Later lines add the jobs that ran there (``job``) and the removal
(``removed``, with the archive ref that keeps the tip). The file is only ever appended to; a line
that does not decode (a torn write, a hand edit) is skipped, never rewritten.

Lines (``v`` is the layout version)::

    {"v":1,"event":"created","path":…,"repo":…,"commonDir":…,"branch":…,"base":…,
     "newBranch":true,"dev":…,"ino":…,"token":…,"at":…}
    {"v":1,"event":"job","path":…,"job":"<job id>","at":…}
    {"v":1,"event":"removed","path":…,"archive":"refs/mytty/archive/…","tip":…,"at":…}
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace

RECORD_VERSION = 1


@dataclass(frozen=True, slots=True)
class WorktreeEntry:
    """One worktree mytty created and has not removed."""

    path: str
    repo: str  # the working tree ``--worktree`` was resolved from
    common_dir: str  # the repository's shared git directory (absolute)
    branch: str
    base: str | None  # the branch checked out in ``repo`` at creation: what "merged" is against
    new_branch: bool  # mytty created the branch too (not only the worktree)
    device: int
    inode: int
    created_at: float
    #: A random token mytty wrote into the worktree's private git directory at creation
    #: (``<common dir>/worktrees/<name>/mytty-token``): a worktree someone re-made at the same
    #: path has a new private directory without it (inodes are reused, so they alone can't tell).
    token: str
    jobs: tuple[str, ...] = ()


def _line(obj: dict[str, object]) -> str:
    return json.dumps({"v": RECORD_VERSION, **obj}, ensure_ascii=False, separators=(",", ":"))


def created_line(entry: WorktreeEntry) -> str:
    return _line(
        {
            "event": "created",
            "path": entry.path,
            "repo": entry.repo,
            "commonDir": entry.common_dir,
            "branch": entry.branch,
            "base": entry.base,
            "newBranch": entry.new_branch,
            "dev": entry.device,
            "ino": entry.inode,
            "token": entry.token,
            "at": entry.created_at,
        }
    )


def job_line(path: str, job_id: str, at: float) -> str:
    return _line({"event": "job", "path": path, "job": job_id, "at": at})


def removed_line(path: str, archive: str | None, tip: str | None, at: float) -> str:
    return _line({"event": "removed", "path": path, "archive": archive, "tip": tip, "at": at})


def _text(obj: dict[str, object], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str) or not value:
        raise TypeError(key)
    return value


def _int(obj: dict[str, object], key: str) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(key)
    return value


def _created(obj: dict[str, object]) -> WorktreeEntry:
    base = obj.get("base")
    at = obj.get("at", 0.0)
    return WorktreeEntry(
        path=_text(obj, "path"),
        repo=_text(obj, "repo"),
        common_dir=_text(obj, "commonDir"),
        branch=_text(obj, "branch"),
        base=base if isinstance(base, str) and base else None,
        new_branch=obj.get("newBranch") is True,
        device=_int(obj, "dev"),
        inode=_int(obj, "ino"),
        created_at=float(at) if isinstance(at, int | float) else 0.0,
        token=_text(obj, "token"),
    )


def fold(lines: Iterable[str]) -> list[WorktreeEntry]:
    """The worktrees the record says mytty created and still has, oldest first."""
    live: dict[str, WorktreeEntry] = {}
    for raw in lines:
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict) or obj.get("v") != RECORD_VERSION:
                continue
            event, path = obj.get("event"), _text(obj, "path")
            if event == "created":
                live.pop(path, None)  # re-created after a removal: the newest creation counts
                live[path] = _created(obj)
            elif event == "job" and path in live:
                job = _text(obj, "job")
                if job not in live[path].jobs:
                    live[path] = replace(live[path], jobs=(*live[path].jobs, job))
            elif event == "removed":
                live.pop(path, None)
        except (ValueError, KeyError, TypeError):
            continue
    return list(live.values())
