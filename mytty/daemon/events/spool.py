"""The controller's half of the event spool: hook events that found no controller.

``mytty-agent-hook`` writes an event it could not deliver (no controller listened: a restart,
``mytty stop``) into ``<home>/event-spool/`` (:mod:`mytty.hook.spool`). At start the controller
ingests every waiting file, oldest first, through the event socket's own handler (the same
decoding, capability and Codex routing checks) before the startup sweep looks at the runs, so
a turn that ended during the restart ends its run as it would have. Then, while it runs, an
inotify watch takes each file a hook renames into place later (a hook whose connect was refused
just before this controller bound its socket): nothing polls.

Each file is deleted once handled, whatever the answer: a refused event (its pane went, its
capability was revoked) is logged and dropped, as the socket would have refused it. A file
that is not a regular file of this user, or is larger than a request may be, is dropped
unread. Files older than :data:`MAX_AGE_S` are dropped too: their panes are long gone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import time
from pathlib import Path

from mytty.core.paths import EVENT_SPOOL_SUFFIX
from mytty.daemon import inotify
from mytty.daemon.server.sockets import Handler, HeldReply, Peer
from mytty.protocol.limits import MAX_REQUEST_BYTES

log = logging.getLogger(__name__)

#: A spooled event older than this is not replayed.
MAX_AGE_S = 6 * 3600.0


class EventSpool:
    def __init__(self, directory: Path, handle: Handler) -> None:
        self._dir = directory
        self._handle = handle
        self._inotify: inotify.Inotify | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._draining: asyncio.Task[int] | None = None
        self._again = False
        self.ingested = 0  # events handled from the spool (for tests and logs)

    def _names(self) -> list[str]:
        try:
            names = os.listdir(self._dir)
        except FileNotFoundError:
            return []
        # The names start with the hook's time in nanoseconds: sorted, oldest first.
        return sorted(n for n in names if n.endswith(EVENT_SPOOL_SUFFIX) and not n.startswith("."))

    def _read(self, path: Path) -> bytes | None:
        """The file's envelope line, or None when it must not be read (it is removed either way)."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
                log.warning("event spool: %s is not this user's file; dropped", path.name)
                return None
            if st.st_size > MAX_REQUEST_BYTES + 1:
                log.warning("event spool: %s is larger than a request; dropped", path.name)
                return None
            if time.time() - st.st_mtime > MAX_AGE_S:
                return None
            return os.read(fd, MAX_REQUEST_BYTES + 2)
        finally:
            os.close(fd)

    async def drain(self) -> int:
        """Ingest every waiting file, oldest first; the number handled."""
        handled = 0
        peer = Peer(pid=0, uid=os.getuid())
        for name in self._names():
            path = self._dir / name
            body = self._read(path)
            try:
                path.unlink()
            except FileNotFoundError:
                continue  # another drain took it
            except OSError as exc:
                log.error("event spool: cannot remove %s (%s); left unread", name, exc)
                continue
            if body is None:
                continue
            reply = await self._handle(body.rstrip(b"\n"), peer)
            if isinstance(reply, HeldReply):  # nobody waits for a decision: take the ack only
                reply = reply.first
            if not _accepted(reply):
                log.info("event spool: %s refused: %s", name, reply.decode("utf-8", "replace"))
            handled += 1
        self.ingested += handled
        if handled:
            log.info("event spool: %d event(s) that found no controller ingested", handled)
        return handled

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Take files that arrive from now on as they arrive (inotify on the directory)."""
        self._loop = loop
        try:
            self._dir.mkdir(mode=0o700, exist_ok=True)
            self._inotify = inotify.Inotify()
            self._inotify.add_watch(str(self._dir), inotify.IN_MOVED_TO | inotify.IN_ONLYDIR)
        except OSError as exc:
            log.warning("event spool: late files are read at the next start only: %s", exc)
            if self._inotify is not None:
                self._inotify.close()
                self._inotify = None
            return
        loop.add_reader(self._inotify.fd, self._on_readable)
        self._schedule()  # anything renamed in between the first drain and the watch

    def _on_readable(self) -> None:
        if self._inotify is not None and self._inotify.read():
            self._schedule()

    def _schedule(self) -> None:
        if self._draining is not None and not self._draining.done():
            self._again = True
            return
        assert self._loop is not None
        self._draining = self._loop.create_task(self._drain_again(), name="event-spool")

    async def _drain_again(self) -> int:
        handled = 0
        while True:
            self._again = False
            try:
                handled += await self.drain()
            except Exception:  # a task: log it, the next file tries again
                log.exception("event spool: drain failed")
            if not self._again:
                return handled

    async def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close(self._loop)
            self._inotify = None
        if self._draining is not None:
            await asyncio.gather(self._draining, return_exceptions=True)


def _accepted(reply: bytes) -> bool:
    try:
        decoded = json.loads(reply)
    except ValueError:
        return False
    return isinstance(decoded, dict) and decoded.get("ok") is True
