"""The file behind :mod:`mytty.core.worktree.record`: ``$MYTTY_HOME/worktrees.jsonl``.

Appends are one ``write`` of a whole line under an exclusive ``flock`` and are fsynced before the
caller goes on (a worktree is recorded before the worker starts in it), so the controller and a
``mytty worktree gc`` running at the same time never interleave lines. Reads take the shared
lock. Blocking: call from a worker thread in the controller.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from mytty.core.worktree.record import WorktreeEntry, fold


class WorktreeRecord:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, line: str) -> None:
        """Append one record line (raises OSError when the file can't be written)."""
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def entries(self) -> list[WorktreeEntry]:
        """The worktrees mytty created and has not removed (none when there is no file)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            with os.fdopen(os.dup(fd), "rb") as f:
                raw = f.read()
        finally:
            os.close(fd)
        return fold(raw.decode("utf-8", "replace").splitlines())

    def entry_for(self, path: str) -> WorktreeEntry | None:
        real = os.path.realpath(path)
        for entry in self.entries():
            if os.path.realpath(entry.path) == real:
                return entry
        return None
