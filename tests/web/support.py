"""A real ``mytty web`` process for the tests and the bench: started, its link read, stopped."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.support.harness import MYTTY


def env_for(home: Path) -> dict[str, str]:
    """An environment whose ``mytty`` acts on ``home`` (and nothing of the caller's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MYTTY_", "TMUX"))}
    env.update(MYTTY_HOME=str(home), LANG="C.UTF-8")
    return env


class Served:
    """A running ``mytty web`` (on a free loopback port unless ``args`` say otherwise) and
    what it printed: ``link`` (the pairing link), ``base`` (``http://127.0.0.1:PORT``)."""

    def __init__(self, env: dict[str, str], *args: str, listen: str = "127.0.0.1:0") -> None:
        self.env = env
        self.proc = subprocess.Popen(
            [MYTTY, "web", "--listen", listen, *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.lines: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip("\n"))
            if "/pair/" in line:
                break
        assert self.lines and "/pair/" in self.lines[-1], (self.lines, self.stop())
        self.link = self.lines[-1]
        self.base = self.link.split("/pair/")[0]
        self.port = int(self.base.rsplit(":", 1)[1])

    def new_link(self) -> str:
        """A fresh pairing link (``mytty web --pair``)."""
        done = subprocess.run(
            [MYTTY, "web", "--pair"], env=self.env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]

    def stop(self) -> str:
        """Stop it (SIGTERM); its stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
        _out, err = self.proc.communicate(timeout=15)
        return err
