"""A reader that stops early (``| head``) ends ``mytty-ctl`` and ``mytty`` quietly (issue 26,
item 6). Before: ``mytty-ctl read PANE | head -c 10`` printed a Python traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import CTL_EXE, FakeController, ctl_env

MYTTY = str(Path(sys.executable).with_name("mytty"))
PANE = "71A1E55B-3C27-4538-9E7F-339E25D31217"


def big_read_reply(_body: bytes) -> bytes:
    # More than a pipe holds (64 KiB), so the writer meets the closed end for sure.
    text = "\n".join(f"line {n} " + "x" * 60 for n in range(4000))
    reply = {"type": "read", "paneID": PANE, "content": {"text": text}}
    return json.dumps(reply).encode() + b"\n"


def test_read_into_head_prints_no_traceback(workdir: Path) -> None:
    server = FakeController(workdir, big_read_reply)
    try:
        proc = subprocess.run(
            ["bash", "-c", f'"$0" read {PANE} | head -c 10', CTL_EXE],
            env=ctl_env(server.path),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    finally:
        server.close()
    assert proc.stdout == '{"content"'
    assert proc.stderr == "", proc.stderr


def closed_stdout(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` with a stdout whose reading end is already closed."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            argv, stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=30
        )
    finally:
        os.close(write_end)


def test_every_output_path_of_mytty_ctl_meets_a_closed_pipe_quietly(
    fake: FakeController,
) -> None:
    env = ctl_env(fake.path)
    for args in (["list"], ["guide"], ["--help"], ["--version"], ["list", "--help"]):
        proc = closed_stdout([CTL_EXE, *args], env)
        assert proc.stderr == "", (args, proc.stderr)
        assert proc.returncode == 1, (args, proc.returncode)


def test_mytty_meets_a_closed_pipe_quietly() -> None:
    env = ctl_env(None)
    for args in (["--help"], ["--version"], ["ls", "--help"]):
        proc = closed_stdout([MYTTY, *args], env)
        assert proc.stderr == "", (args, proc.stderr)
        assert proc.returncode == 1, (args, proc.returncode)
