"""Finding and preparing the tmux server the controller binds to (startup only, not hot).

libtmux's object model is handy here; it is never used on a hot path.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import libtmux

from mytty.core.errors import ErrorCode, MyttyError
from mytty.tmux import socketdir

USER_SESSION = "mytty"


def resolve_socket(explicit: str | None, env: dict[str, str] | os._Environ[str]) -> str:
    """``--tmux-socket``, else MYTTY_TMUX_SOCKET, else the server of $TMUX, else the default."""
    if explicit:
        return os.path.abspath(explicit)
    if env.get("MYTTY_TMUX_SOCKET"):
        return os.path.abspath(env["MYTTY_TMUX_SOCKET"])
    tmux = env.get("TMUX")
    if tmux:
        return tmux.split(",")[0]
    return socketdir.default_socket(env)


def tmux_binary() -> str:
    path = shutil.which("tmux")
    if path is None:
        raise MyttyError(
            ErrorCode.TMUX_UNAVAILABLE,
            "tmux is not installed (install it, e.g. `sudo apt-get install tmux`; mytty needs 3.2+)",
        )
    return path


def tmux_argv(socket_path: str) -> list[str]:
    return [tmux_binary(), "-S", socket_path]


def check_version() -> str:
    out = subprocess.run([tmux_binary(), "-V"], capture_output=True, text=True, check=False)
    text = out.stdout.strip()
    try:
        number = text.split()[1]
        major, minor = number.split(".")[:2]
        ok = (int(major), int("".join(c for c in minor if c.isdigit()) or 0)) >= (3, 2)
    except (IndexError, ValueError):
        ok = True  # an unusual version string: let tmux itself complain later
    if not ok:
        raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, f"mytty needs tmux 3.2 or newer; found {text}")
    return text


def server(socket_path: str) -> libtmux.Server:
    return libtmux.Server(socket_path=socket_path)


def server_alive(socket_path: str) -> bool:
    """True when a tmux server answers on ``socket_path``."""
    return bool(server(socket_path).is_alive())


#: ``<pid>@<start time>``: unlike the pid alone, never the same for two servers.
SERVER_IDENTITY_FORMAT = "#{pid}@#{start_time}"


def server_identity(socket_path: str, timeout: float = 5.0) -> str | None:
    """The identity of the server answering on ``socket_path``; "" when none answers.

    None when the answer did not come in time (a stopped server may still own its panes).
    """
    try:
        out = subprocess.run(
            [*tmux_argv(socket_path), "display-message", "-p", SERVER_IDENTITY_FORMAT],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None
    return out.stdout.strip() if out.returncode == 0 else ""


def user_sessions(srv: libtmux.Server, private: str) -> list[str]:
    if not srv.is_alive():
        return []
    return [s.session_name or "" for s in srv.sessions if s.session_name != private]


def ensure_private_session(
    socket_path: str, private: str, keepalive_command: str, *, fresh: bool = False
) -> None:
    """Create the controller's own session (the control client's home), starting the server.

    ``fresh`` replaces a leftover one: after a crash its keepalive still watches the dead
    controller and would remove the new controller's hooks a moment later.
    """
    srv = server(socket_path)
    if srv.is_alive() and srv.has_session(private):
        if not fresh:
            return
        subprocess.run(
            [*tmux_argv(socket_path), "kill-session", "-t", f"={private}"],
            capture_output=True,
            check=False,
        )
    result = subprocess.run(
        [
            *tmux_argv(socket_path),
            "new-session",
            "-d",
            "-s",
            private,
            "-x",
            "80",
            "-y",
            "24",
            keepalive_command,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 and not srv.has_session(private):
        raise MyttyError(
            ErrorCode.TMUX_UNAVAILABLE,
            f"could not start tmux on {socket_path}: {result.stderr.strip() or result.returncode}",
        )


def user_session_exists(socket_path: str, private: str) -> bool:
    return bool(user_sessions(server(socket_path), private))
