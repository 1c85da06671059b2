"""Putting a human's terminal on a session: the argv to exec and the line to tell them.

Stdlib only, so ``mytty up`` can use it without loading libtmux.
"""

from __future__ import annotations

import shutil


def attach_hint(socket_path: str, session: str) -> str:
    """The command a human runs to attach to ``session`` of the server at ``socket_path``."""
    return f"tmux -S {socket_path} attach -t {session}"


def attach_argv(socket_path: str, session: str, *, inside_same_server: bool) -> list[str]:
    """The argv that puts this terminal on ``session``.

    Inside a client of the same server it switches that client (attaching would nest);
    otherwise it attaches. The target names exactly ``session``, never a prefix of another.
    """
    tmux = shutil.which("tmux") or "tmux"
    verb = "switch-client" if inside_same_server else "attach-session"
    return [tmux, "-S", socket_path, verb, "-t", f"={session}"]
