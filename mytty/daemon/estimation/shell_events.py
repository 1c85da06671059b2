"""Follows the per-pane event files shell integration appends to (``$MYTTY_HOME/shell``).

The shells write ``<surface>.ev`` with builtins only (no fork per prompt); this side is woken by
inotify on the directory (no polling), reads each file from the offset it had reached (never a
whole file again), and keeps per pane the last command's exit status and time and the cwd
(:class:`~mytty.core.shell.events.ShellState`), shown in ``list`` and kept for native run
estimation. Work per line is O(1) in the number of panes and files.

Trust: the directory is 0700 and ours, but any process of the user can write there. A file is
read only when its name is a live pane's surface id, it is a regular file of ours (opened with
O_NOFOLLOW|O_NONBLOCK, so a symlink or FIFO planted there is refused, never waited on), and each
line must parse strictly and carry that pane's capability. A controller restart resumes from
the tail of each live pane's file; files of panes that are gone are deleted.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mytty.core.shell.events import FILE_NAME, LineSplitter, ShellEvent, ShellState, parse_line
from mytty.daemon import inotify

log = logging.getLogger(__name__)

#: How much of a file a restarted controller reads back to learn each pane's last state.
RESUME_TAIL = 64 * 1024
#: Bytes read from one file per wake-up; the rest follows on the next loop turn (fairness).
READ_BUDGET = 1024 * 1024

_WATCH_MASK = (
    inotify.IN_MODIFY
    | inotify.IN_CREATE
    | inotify.IN_MOVED_TO
    | inotify.IN_DELETE_SELF
    | inotify.IN_MOVE_SELF
    | inotify.IN_ONLYDIR
)


@dataclass(slots=True)
class _Cursor:
    identity: tuple[int, int]  # (st_dev, st_ino): a replaced file starts again at 0
    offset: int
    splitter: LineSplitter = field(default_factory=LineSplitter)


class ShellEventWatcher:
    def __init__(
        self,
        directory: Path,
        *,
        authorize: Callable[[str, str], bool],
        is_live: Callable[[str], bool],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = directory
        self._authorize = authorize  # (surface, capability) -> the live pane's own capability?
        self._is_live = is_live
        self._clock = clock
        self._states: dict[str, ShellState] = {}
        self._cursors: dict[str, _Cursor] = {}
        self._inotify: inotify.Inotify | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.rejected_lines = 0  # lines dropped as invalid (for logs and tests)
        self._listeners: list[Callable[[str, ShellEvent], None]] = []

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Create the directory, watch it, and catch up with what the shells wrote meanwhile."""
        self._loop = loop
        self._ensure_directory()
        self._watch()
        self._catch_up(resume=True)

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close(self._loop)
            self._inotify = None

    def _ensure_directory(self) -> None:
        self.directory.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(self.directory)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            raise OSError(f"{self.directory} is not a directory of ours")
        if stat.S_IMODE(st.st_mode) != 0o700:
            os.chmod(self.directory, 0o700)

    def _watch(self) -> None:
        self.close()
        self._inotify = inotify.Inotify()
        self._inotify.add_watch(str(self.directory), _WATCH_MASK)
        assert self._loop is not None
        self._loop.add_reader(self._inotify.fd, self._on_readable)

    # -- what the rest of the controller asks -----------------------------------------------------
    def state(self, surface_id: str) -> ShellState | None:
        return self._states.get(surface_id)

    def add_listener(self, fn: Callable[[str, ShellEvent], None]) -> None:
        """``fn(surface, event)`` hears every line read as it happens (native run estimation);
        lines read back from a file's tail at startup are history and are not passed on."""
        self._listeners.append(fn)

    def forget(self, surface_id: str) -> None:
        """The pane is gone: drop its state and its file."""
        self._states.pop(surface_id, None)
        self._cursors.pop(surface_id, None)
        try:
            os.unlink(self.directory / f"{surface_id}.ev")
        except OSError:
            pass

    # -- reading ----------------------------------------------------------------------------------
    def _on_readable(self) -> None:
        assert self._inotify is not None
        names: set[str] = set()
        overflow = rewatch = False
        for event in self._inotify.read():
            if event.mask & inotify.IN_Q_OVERFLOW:
                overflow = True
            elif event.mask & (inotify.IN_DELETE_SELF | inotify.IN_MOVE_SELF | inotify.IN_IGNORED):
                rewatch = True
            elif event.name:
                names.add(event.name)
        if rewatch:
            log.warning("%s was removed or moved; recreating it", self.directory)
            self._ensure_directory()
            self._watch()
            overflow = True
        if overflow:
            self._catch_up(resume=False)
            return
        for name in names:
            match = FILE_NAME.fullmatch(name)
            if match is not None and self._is_live(match[1]):
                self.drain(match[1])

    def _catch_up(self, *, resume: bool) -> None:
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            match = FILE_NAME.fullmatch(name)
            if match is None:
                continue
            surface = match[1]
            if self._is_live(surface):
                self.drain(surface, resume=resume)
            elif resume:
                self.forget(surface)  # a pane that closed while no controller ran

    def drain(self, surface_id: str, *, resume: bool = False) -> None:
        """Read what was appended to the pane's file since the last call."""
        path = self.directory / f"{surface_id}.ev"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                return
            if st.st_mode & 0o077:  # written by an older integration under the shell's umask
                os.fchmod(fd, 0o600)
            cursor = self._cursors.get(surface_id)
            identity = (st.st_dev, st.st_ino)
            if cursor is None or cursor.identity != identity or st.st_size < cursor.offset:
                cursor = _Cursor(identity, 0)
                if resume and st.st_size > RESUME_TAIL:
                    cursor.offset = st.st_size - RESUME_TAIL
                    cursor.splitter.skip_partial()  # we start inside a line
                self._cursors[surface_id] = cursor
            budget = READ_BUDGET
            now = self._clock()
            while budget > 0:
                chunk = os.pread(fd, min(64 * 1024, budget), cursor.offset)
                if not chunk:
                    return
                cursor.offset += len(chunk)
                budget -= len(chunk)
                for line in cursor.splitter.feed(chunk):
                    self._line(surface_id, line, now, live=not resume)
            if self._loop is not None:  # more is waiting: continue after other work
                self._loop.call_soon(self.drain, surface_id)
        except OSError as exc:
            log.debug("reading %s: %s", path, exc)
        finally:
            os.close(fd)

    def _line(self, surface_id: str, line: bytes, now: float, *, live: bool) -> None:
        event = parse_line(line)
        if event is None or not self._authorize(surface_id, event.capability):
            self.rejected_lines += 1
            return
        state = self._states.get(surface_id)
        if state is None:
            state = self._states[surface_id] = ShellState()
        state.apply(event, now)
        if live:
            for fn in self._listeners:
                try:
                    fn(surface_id, event)
                except Exception:  # pragma: no cover - a listener's bug must not stop reading
                    log.exception("shell event listener failed")
