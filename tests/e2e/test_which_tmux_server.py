"""``mytty up|start`` say which tmux server they use and why, and refuse another one
(issue 26, item 8). Before: ``up --tmux-socket X`` while the controller ran on another socket
ignored the flag silently, and after a ``start --tmux-socket X`` controller's server died a
plain ``up`` restarted onto X without saying why."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.harness import MYTTY, TMUX, Mytty, wait_until

pytestmark = pytest.mark.tmux


def run(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args], env=m.env, capture_output=True, text=True, timeout=60, cwd=str(m.home)
    )


@pytest.fixture
def two_sockets() -> Iterator[tuple[Mytty, Path, Path]]:
    m = Mytty(start_tmux=False)
    first, second = m.root / "one.sock", m.root / "two.sock"
    try:
        yield m, first, second
    finally:
        run(m, "stop")
        for sock in (first, second):
            subprocess.run([TMUX, "-S", str(sock), "kill-server"], capture_output=True)
        m.close()


def test_another_socket_is_refused_and_the_server_is_named(
    two_sockets: tuple[Mytty, Path, Path],
) -> None:
    m, first, second = two_sockets
    started = run(m, "start", "--tmux-socket", str(first))
    assert started.returncode == 0, started.stderr + m.log()
    assert f"tmux server {first}: --tmux-socket" in started.stdout

    for command in (["up", "--no-attach"], ["start"]):
        refused = run(m, *command, "--tmux-socket", str(second))
        assert refused.returncode == 1, refused
        (line,) = refused.stderr.splitlines()
        assert line.startswith("mytty: already-running: ")
        assert f"runs on the tmux server at {first}, not {second}" in line
        assert "mytty stop" in line
    assert not second.exists()  # nothing was started there

    same = run(m, "up", "--no-attach", "--tmux-socket", str(first))
    assert same.returncode == 0, same.stderr
    again = run(m, "start")
    assert again.stdout.strip().endswith(f"tmux server {first})"), again.stdout


def test_up_after_the_server_died_says_where_it_restarts_and_why(
    two_sockets: tuple[Mytty, Path, Path],
) -> None:
    m, first, _second = two_sockets
    assert run(m, "start", "--tmux-socket", str(first)).returncode == 0
    pid = int(
        subprocess.run(
            [TMUX, "-S", str(first), "display-message", "-p", "#{pid}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    subprocess.run([TMUX, "-S", str(first), "kill-server"], check=True)
    wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 10, message="tmux to exit")
    wait_until(lambda: m.ctl("list").returncode == 1, 10, message="the controller to notice")

    up = run(m, "up", "--no-attach")
    assert up.returncode == 0, up.stderr + m.log()
    assert (
        f"mytty: the tmux server at {first} is gone; restarting the controller on a new one "
        f"at {first} (where this home's controller ran; --tmux-socket X for another)"
    ) in up.stderr
    assert up.stdout.strip() == f"mytty is ready: tmux -S {first} attach -t mytty"
