"""Making sure the directory of a tmux socket exists and is safe, before ``tmux -S`` runs.

``tmux -S PATH`` never creates PATH's directory: on a fresh machine (nobody ran ``tmux`` yet,
or ``TMUX_TMPDIR`` names an empty directory) the server cannot bind and tmux still exits 0.
Plain ``tmux`` creates ``$TMUX_TMPDIR/tmux-UID`` itself with mode 0700 and refuses one that is
not a real directory owned by the user or that other users can access; mytty does the same for
that directory, so the user's own ``tmux attach`` keeps working on what mytty made.

An explicit socket path (``--tmux-socket``) may live anywhere: missing directories are made
0700, and an existing parent is refused only where another user could replace the socket
(owned by someone other than the user or root, or writable by group/others without the
sticky bit, like ``/tmp`` has).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mytty.core.errors import ErrorCode, MyttyError


def default_socket(env: dict[str, str] | os._Environ[str]) -> str:
    """The socket plain ``tmux`` uses: ``$TMUX_TMPDIR`` (else /tmp), ``tmux-UID/default``."""
    base = env.get("TMUX_TMPDIR") or "/tmp"
    return str(Path(base) / f"tmux-{os.getuid()}" / "default")


def ensure(socket_path: str, *, default: bool) -> None:
    """Create the socket's directory if needed; raise ``unsafe-socket-directory`` if unsafe.

    ``default`` marks tmux's own per-user directory (the stricter rules of plain tmux).
    """
    parent = Path(socket_path).parent
    if default:
        _ensure_user_dir(parent)
    else:
        _ensure_any_dir(parent)


def _ensure_user_dir(directory: Path) -> None:
    # Exactly one level, like tmux: $TMUX_TMPDIR itself must exist.
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise MyttyError(
            ErrorCode.TMUX_UNAVAILABLE,
            f"could not create tmux's socket directory {directory}: {exc.strerror}"
            + (" (check TMUX_TMPDIR)" if os.environ.get("TMUX_TMPDIR") else ""),
        ) from None
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode):
        _unsafe(directory, "is not a directory")
    if info.st_uid != os.getuid():
        _unsafe(directory, f"is owned by uid {info.st_uid}, not by you (uid {os.getuid()})")
    if info.st_mode & (stat.S_IRWXO | stat.S_IWGRP):
        _unsafe(
            directory,
            f"has mode {stat.S_IMODE(info.st_mode):04o}; other users can use it "
            f"(fix: chmod 700 {directory})",
        )


def _ensure_any_dir(directory: Path) -> None:
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    try:
        for each in reversed(missing):  # every directory mytty makes is private
            try:
                os.mkdir(each, 0o700)
            except FileExistsError:
                pass  # made meanwhile by somebody else: checked below like any existing one
    except OSError as exc:
        raise MyttyError(
            ErrorCode.TMUX_UNAVAILABLE,
            f"could not create the tmux socket's directory {directory}: {exc.strerror}",
        ) from None
    info = os.stat(directory)
    if not stat.S_ISDIR(info.st_mode):
        _unsafe(directory, "is not a directory")
    sticky = bool(info.st_mode & stat.S_ISVTX)
    if info.st_uid not in (os.getuid(), 0) and not sticky:
        _unsafe(directory, f"is owned by uid {info.st_uid}, not by you (uid {os.getuid()})")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky:
        _unsafe(
            directory,
            f"has mode {stat.S_IMODE(info.st_mode):04o}; other users could replace the socket "
            f"(fix: chmod go-w {directory})",
        )


def _unsafe(directory: Path, why: str) -> None:
    raise MyttyError(ErrorCode.UNSAFE_SOCKET_DIRECTORY, f"tmux socket directory {directory} {why}")
