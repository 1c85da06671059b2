"""``mytty``'s usage errors are one line and exit 1, as the README promises (issue 26, item 15).

Before: typer answered ``mytty lss`` with a rich box on stderr and exit status 2, its help
showed ``<bool>``/``<str>`` for every option, and ``notify``'s help lost ``[notify]`` to rich
markup ("try the channels of  in config.toml").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MYTTY = str(Path(sys.executable).with_name("mytty"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYTTY_")}
    env.update(COLUMNS="80", TERM="dumb", MYTTY_HOME="/nonexistent/mytty-home")
    return subprocess.run(
        [MYTTY, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("lss",), "mytty: usage: No such command 'lss'. Did you mean 'ls'? (see 'mytty --help')"),
        (("ls", "--bogus"), "mytty: usage: No such option: --bogus (see 'mytty ls --help')"),
        (("attention", "--ack"), "mytty: usage: Option '--ack' requires an argument."),
        (("integrations", "enabel"), "Did you mean 'enable'?"),
    ],
)
def test_a_usage_error_is_one_line_and_exit_1(args: tuple[str, ...], expected: str) -> None:
    proc = run(*args)
    assert proc.returncode == 1, proc
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("mytty: usage: ")
    assert expected in proc.stderr


def test_help_shows_no_type_placeholders() -> None:
    for args in (
        ("--help",),
        ("up", "--help"),
        ("attention", "--help"),
        ("tmux", "install", "--help"),
    ):
        proc = run(*args)
        assert proc.returncode == 0, proc
        assert "<bool>" not in proc.stdout and "<str>" not in proc.stdout, proc.stdout
        assert "<list" not in proc.stdout
    up = run("up", "--help").stdout
    assert "--tmux-socket" in up and "SOCKET" in up


def test_notify_help_keeps_its_section_name() -> None:
    proc = run("notify", "--help")
    assert proc.returncode == 0
    assert "try the channels of [notify] in config.toml" in proc.stdout


def test_success_and_exit_statuses_are_kept() -> None:
    assert run("--version").returncode == 0
    assert run("--version").stdout.startswith("mytty ")
    # A command's own failure keeps its one line and status 1 (no controller in this home).
    proc = run("attention")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("mytty: not-running: "), proc
    no_args = run()
    assert no_args.returncode == 1 and "Usage: mytty" in no_args.stdout
