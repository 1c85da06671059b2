"""The controller's home directory: sockets, store, log, lock, guide."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mytty.core import paths
from mytty.core.errors import ErrorCode, MyttyError

#: Linux ``sockaddr_un.sun_path`` holds 108 bytes including the terminating NUL.
SUN_PATH_MAX = 107


def default_home(env: Mapping[str, str] | None = None) -> Path:
    return Path(paths.mytty_home(os.environ if env is None else env))


@dataclass(frozen=True)
class Home:
    root: Path

    @property
    def control_socket(self) -> Path:
        return self.root / paths.CONTROL_SOCKET

    @property
    def event_socket(self) -> Path:
        return self.root / paths.EVENT_SOCKET

    @property
    def store(self) -> Path:
        return self.root / paths.STORE

    @property
    def log_file(self) -> Path:
        return self.root / paths.LOG_FILE

    @property
    def lock_file(self) -> Path:
        return self.root / paths.LOCK_FILE

    @property
    def secret_file(self) -> Path:
        return self.root / paths.SECRET_FILE

    @property
    def guide_file(self) -> Path:
        return self.root / paths.GUIDE_FILE

    @property
    def config_file(self) -> Path:
        return self.root / paths.CONFIG_FILE

    @property
    def launch_dir(self) -> Path:
        return self.root / paths.LAUNCH_DIR

    @property
    def shell_events_dir(self) -> Path:
        return self.root / paths.SHELL_EVENTS_DIR

    @property
    def event_spool_dir(self) -> Path:
        return self.root / paths.EVENT_SPOOL_DIR

    @property
    def tmux_socket_record(self) -> Path:
        return self.root / paths.TMUX_SOCKET_RECORD

    @property
    def tmux_install_record(self) -> Path:
        """What ``mytty tmux install`` installed, so a new tmux server gets it again."""
        return self.root / paths.TMUX_INSTALL_RECORD

    @property
    def worktree_record(self) -> Path:
        return self.root / paths.WORKTREE_RECORD

    def ensure(self) -> None:
        """Create the home 0700 (tightening an existing one) and check socket path lengths."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        mode = stat.S_IMODE(self.root.stat().st_mode)
        if mode != 0o700:
            os.chmod(self.root, 0o700)
        self.launch_dir.mkdir(exist_ok=True, mode=0o700)
        for sock in (self.control_socket, self.event_socket):
            if len(os.fsencode(str(sock))) > SUN_PATH_MAX:
                raise MyttyError(
                    ErrorCode.SOCKET_PATH_TOO_LONG,
                    f"socket path {sock} is {len(os.fsencode(str(sock)))} bytes; Unix sockets allow "
                    f"{SUN_PATH_MAX}. Set MYTTY_HOME to a shorter directory.",
                )

    def read_or_create_secret(self) -> bytes:
        """The per-home key that capabilities are derived from (created 0600 on first use)."""
        try:
            data = self.secret_file.read_bytes()
            if len(data) >= 32:
                return data
        except FileNotFoundError:
            pass
        secret = os.urandom(32)
        write_private(self.secret_file, secret)
        return secret


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as a file only its owner can read or write.

    0600 whatever the umask (the mode is given at creation and set again on a file that was
    there already), and never through a symlink someone left at ``path``.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
