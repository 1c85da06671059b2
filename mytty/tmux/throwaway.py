"""A throw-away tmux server on its own socket (``mytty integrations verify`` runs agents in one).

Plain ``tmux`` subprocesses, no libtmux: the server lives only as long as one verification, and
its panes get the environment it was started with (tmux copies the starting client's).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping


class ThrowawayServerError(Exception):
    """tmux refused to start the server; the text is tmux's own."""


def start_server(
    tmux: str, socket_path: str, env: Mapping[str, str], *, session: str, width: int, height: int
) -> None:
    """Start a server with no user configuration and one detached session of the given size."""
    out = subprocess.run(
        [
            tmux,
            "-S",
            socket_path,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            str(width),
            "-y",
            str(height),
        ],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    if out.returncode != 0:
        raise ThrowawayServerError(out.stderr.strip() or f"tmux exited {out.returncode}")


def kill_server(tmux: str, socket_path: str, env: Mapping[str, str]) -> None:
    """Stop the server and every pane in it (quietly: it may already be gone)."""
    subprocess.run(
        [tmux, "-S", socket_path, "kill-server"],
        env=dict(env),
        capture_output=True,
        timeout=20,
        check=False,
    )
