"""One controller per home: the lock file, and the files the controller leaves for others."""

from __future__ import annotations

import fcntl
import logging
import os

from mytty.core.errors import ErrorCode, MyttyError
from mytty.daemon.home import Home, write_private

log = logging.getLogger(__name__)


class ControllerLock:
    """An exclusive ``flock`` on the home's lock file, holding the owner's pid.

    The kernel drops the lock when the process dies (even by kill -9), so a stale lock file
    never blocks a new controller.
    """

    def __init__(self, home: Home) -> None:
        self._home = home
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock or fail with ``already-running`` naming the holder's pid."""
        self._home.ensure()
        fd = os.open(self._home.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                other = os.read(fd, 32).decode().strip()
            finally:
                os.close(fd)
            raise MyttyError(
                ErrorCode.ALREADY_RUNNING,
                f"a controller is already running for {self._home.root}"
                + (f" (pid {other})" if other else "")
                + "; stop it with `mytty stop` or use another MYTTY_HOME",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def write_guide(home: Home) -> None:
    """Write the agent guide (``mytty-ctl guide``) next to the sockets; best effort."""
    from mytty.control.manual import guide_text

    try:
        tmp = home.guide_file.with_suffix(".tmp")
        write_private(tmp, guide_text().encode("utf-8"))  # never writable by others, umask 000
        os.chmod(tmp, 0o644)  # documentation: readable
        os.replace(tmp, home.guide_file)
    except OSError as exc:
        log.warning("could not write %s: %s", home.guide_file, exc)
