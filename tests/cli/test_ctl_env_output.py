"""``mytty-ctl env`` prints shell code: each shell must read back exactly what the controller sent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .conftest import FakeController, ctl_env, run_ctl

HOSTILE = "back\\slash 'quote' $HOME `id` \\n \\\\"


def _env_reply(_body: bytes) -> bytes:
    reply = {
        "type": "env",
        "paneID": "P",
        "environment": {
            "MYTTY_SURFACE_ID": HOSTILE,
            "MYTTY_CTL_BIN": "/opt/my tty's\\bin/mytty-ctl",
            "PATH": "/usr/bin:/bin",
        },
    }
    return json.dumps(reply).encode() + b"\n"


@pytest.mark.parametrize(
    ("flag", "shell", "read_back"),
    [
        (None, "bash", 'printf "%s\\0%s" "$MYTTY_SURFACE_ID" "$PATH"'),
        (None, "sh", 'printf "%s\\0%s" "$MYTTY_SURFACE_ID" "$PATH"'),
        ("--fish", "fish", 'printf "%s\\0%s" "$MYTTY_SURFACE_ID" "$PATH"'),
    ],
)
def test_env_output_reads_back_exactly(
    workdir: Path, flag: str | None, shell: str, read_back: str
) -> None:
    server = FakeController(workdir, _env_reply)
    try:
        ran = run_ctl("env", *([flag] if flag else []), env=ctl_env(server.path))
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    script = ran.stdout + read_back + "\n"
    out = subprocess.run(
        [shell, "-c", script],
        capture_output=True,
        check=True,
        timeout=10,
        env={"PATH": "/usr/bin:/bin"},
    ).stdout.decode()
    value, path = out.split("\0")
    assert value == HOSTILE
    sep = " " if shell == "fish" and ":" not in path else ":"
    assert path.split(sep)[-1] == "/opt/my tty's\\bin"
