"""A human's terminal for tests: a real ``tmux attach`` client whose screen can be read.

The client runs in a pane of a second, private "outer" tmux server, so that server is the
terminal emulator: ``capture-pane`` on the outer pane returns exactly what the human sees
(status line, pane borders, popups), and ``send-keys`` to it types as the human would.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from tests.support.harness import TMUX, Mytty, wait_until


class Screen:
    """``tmux attach -t SESSION`` of the harness's server, on a ``width``×``height`` terminal."""

    def __init__(self, m: Mytty, session: str, *, width: int = 160, height: int = 40) -> None:
        self.m = m
        self.socket = str(Path(m.root) / "outer.sock")
        inner = shlex.join([TMUX, "-S", m.socket, "attach-session", "-t", f"={session}"])
        self._outer(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "screen",
            "-x",
            str(width),
            "-y",
            str(height),
            f"exec env TERM=screen-256color {inner}",
        )
        self._outer("set-option", "-g", "status", "off")
        wait_until(self.client_name, 15, message="the tmux client to attach")

    def _outer(self, *args: str) -> str:
        out = subprocess.run(
            [TMUX, "-S", self.socket, *args],
            env=self.m.env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, f"outer tmux {args} failed: {out.stderr}"
        return out.stdout

    def client_name(self) -> str | None:
        """The attached client's name on the harness's server (None until it attached)."""
        fmt = "#{client_name} #{client_control_mode}"
        out = self.m.tmux("list-clients", "-F", fmt, check=False)
        humans = [line.split()[0] for line in out.splitlines() if line.endswith(" 0")]
        return humans[0] if humans else None

    def text(self) -> str:
        """What the terminal shows now, one line per row."""
        return self._outer("capture-pane", "-p", "-t", "screen")

    def wait_for(self, *needles: str, timeout: float = 30.0) -> str:
        def probe() -> str | None:
            text = self.text()
            return text if all(n in text for n in needles) else None

        return wait_until(probe, timeout, message=f"{needles} on the screen")

    def press(self, *keys: str) -> None:
        """Keys by tmux name (``C-b``, ``Enter``, ``q``), as the human presses them."""
        self._outer("send-keys", "-t", "screen", *keys)

    def close(self) -> None:
        subprocess.run(
            [TMUX, "-S", self.socket, "kill-server"],
            env=self.m.env,
            capture_output=True,
            check=False,
        )
