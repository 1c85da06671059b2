"""The controller's side of worktrees: create-and-record, remember the job, remove on close.

Git, ``/proc`` and the record file all block, so each call runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time

from mytty.core.worktree.record import job_line
from mytty.core.worktree.safety import Reason
from mytty.daemon.home import Home
from mytty.daemon.worktree.create import resolve_worktree
from mytty.daemon.worktree.gc import Removal, remove_worktree, worktree_of_job
from mytty.daemon.worktree.record_file import WorktreeRecord
from mytty.protocol.replies import WorktreeRemovalReply

log = logging.getLogger(__name__)

#: After closing a worker's pane, how long its processes get to leave the worktree before the
#: removal gives up with ``in-use`` (they get SIGHUP from tmux; exiting takes milliseconds).
EXIT_GRACE_SECONDS = 3.0


def removal_reply(removal: Removal) -> WorktreeRemovalReply:
    return {
        "path": removal.status.entry.path,
        "branch": removal.status.probe.branch or removal.status.entry.branch,
        "removed": removal.removed,
        "reason": removal.reason,
        "detail": removal.detail,
        "archiveRef": removal.archive,
        "branchDeleted": removal.branch_deleted,
    }


async def _wait_exits(pids: tuple[int, ...], timeout: float) -> None:
    """Until every pid has exited or ``timeout`` passed (pidfds: no polling)."""
    loop = asyncio.get_running_loop()
    waits: list[asyncio.Future[None]] = []
    fds: list[int] = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            continue  # already gone
        fds.append(fd)
        done: asyncio.Future[None] = loop.create_future()

        def exited(fd: int = fd, done: asyncio.Future[None] = done) -> None:
            loop.remove_reader(fd)
            if not done.done():
                done.set_result(None)

        loop.add_reader(fd, exited)
        waits.append(done)
    try:
        if waits:
            await asyncio.wait(waits, timeout=timeout)
    finally:
        for fd in fds:
            loop.remove_reader(fd)
            with contextlib.suppress(OSError):
                os.close(fd)


class WorktreeService:
    def __init__(self, home: Home) -> None:
        self.record = WorktreeRecord(home.worktree_record)

    async def resolve(self, base_dir: str, branch: str) -> str:
        return await asyncio.to_thread(resolve_worktree, base_dir, branch, record=self.record)

    async def used_by(self, path: str, job_id: str) -> None:
        """Remember that ``job_id`` runs in ``path`` (only for worktrees mytty created)."""

        def note() -> None:
            entry = self.record.entry_for(path)
            if entry is not None:
                self.record.append(job_line(entry.path, job_id, time.time()))

        try:
            await asyncio.to_thread(note)
        except OSError as exc:
            log.warning("could not record job %s in worktree %s: %s", job_id, path, exc)

    async def remove_for_job(self, job_id: str) -> WorktreeRemovalReply | None:
        """Remove the job's worktree if the rules allow; None when mytty made none for it."""
        entry = await asyncio.to_thread(worktree_of_job, self.record, job_id)
        if entry is None:
            return None
        removal = await asyncio.to_thread(remove_worktree, self.record, entry)
        busy = removal.status.probe.facts.busy_pids
        if not removal.removed and removal.reason == Reason.IN_USE.value:
            # The pane was closed a moment ago: its processes may still be on their way out.
            await _wait_exits(busy, EXIT_GRACE_SECONDS)
            removal = await asyncio.to_thread(remove_worktree, self.record, entry)
        return removal_reply(removal)
