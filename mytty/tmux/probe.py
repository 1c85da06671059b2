"""What ``mytty doctor`` asks a tmux server, through the tmux CLI (one short call each).

Separate from the controller's control-mode port on purpose: the doctor runs without a
controller, and must say "no server" rather than start one. Every call has a timeout and a
failure is an answer (None / False), never an exception.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from mytty.tmux.bootstrap import tmux_argv

_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class ServerFacts:
    alive: bool
    #: ``allow-passthrough`` of the server's panes by default: "on", "off", "all" (None: unknown).
    allow_passthrough: str | None
    #: ``MYTTY_CTL_BIN`` in the server's global environment (the controller sets it).
    ctl_bin: str | None
    sessions: tuple[str, ...]


def _tmux(socket_path: str, *args: str) -> str | None:
    try:
        done = subprocess.run(
            [*tmux_argv(socket_path), *args],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def server_facts(socket_path: str) -> ServerFacts:
    """The facts of the server at ``socket_path`` (all empty when none answers)."""
    sessions = _tmux(socket_path, "list-sessions", "-F", "#{session_name}")
    if sessions is None:
        return ServerFacts(False, None, None, ())
    passthrough = _tmux(socket_path, "show-options", "-gwv", "allow-passthrough")
    env = _tmux(socket_path, "show-environment", "-g", "MYTTY_CTL_BIN")
    ctl_bin = env.strip().partition("=")[2] if env and "=" in env else None
    return ServerFacts(
        alive=True,
        allow_passthrough=passthrough.strip() if passthrough else None,
        ctl_bin=ctl_bin or None,
        sessions=tuple(sessions.splitlines()),
    )


def passthrough_fix(socket_path: str) -> str:
    """The commands that turn passthrough on now and for later servers."""
    return (
        f"tmux -S {socket_path} set -g allow-passthrough on, and add "
        "`set -g allow-passthrough on` to ~/.tmux.conf"
    )
