"""mytty-ctl behaviours that come from the declarations: per-command help, unknown options,
``--version``, and hostile arguments that must give one clear line, never a traceback."""

from __future__ import annotations

import os
import subprocess

import pytest

from mytty import __version__
from mytty.control import registry

from .conftest import CTL_EXE, FakeController, ctl_env, run_ctl

PANE = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
NAMES = [name for name, _ in registry.ENTRIES if name]


@pytest.mark.parametrize("name", NAMES)
def test_every_command_prints_its_own_help(name: str, fake: FakeController) -> None:
    for flag in ("--help", "-h"):
        ran = run_ctl(*name.split(), flag, env=ctl_env(fake.path))
        assert ran.returncode == 0 and ran.stderr == "", ran.stderr
        assert ran.stdout.startswith(f"usage: mytty-ctl {name}")
    assert fake.connections == 0


def test_help_after_arguments_and_group_help(fake: FakeController) -> None:
    ran = run_ctl("split", PANE, "right", "--help", env=ctl_env(fake.path))
    assert ran.returncode == 0 and ran.stdout.startswith("usage: mytty-ctl split PANE")
    ran = run_ctl("agent", "--help", env=ctl_env(fake.path))
    assert ran.returncode == 0 and "  agent spawn" in ran.stdout and "  agent close" in ran.stdout
    # A value option takes the next word as is, even --help; after `--` it is a positional.
    assert run_ctl("split", PANE, "--command", "--help", env=ctl_env(fake.path)).returncode == 0
    assert run_ctl("send", PANE, "--", "--help", env=ctl_env(fake.path)).returncode == 0
    assert fake.decoded[-1] == {
        "type": "send",
        "paneID": PANE,
        "text": "--help",
        "pressEnter": False,
    }


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_option_is_a_usage_error_for_every_command(
    name: str, fake: FakeController
) -> None:
    ran = run_ctl(*name.split(), "--bogus", env=ctl_env(fake.path))
    assert ran.code == "usage"
    assert "unknown option --bogus" in ran.message and f"mytty-ctl {name}" in ran.message
    assert fake.connections == 0


def test_list_takes_no_arguments(fake: FakeController) -> None:
    assert run_ctl("list", "extra", env=ctl_env(fake.path)).code == "usage"
    assert fake.connections == 0


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version(flag: str, fake: FakeController) -> None:
    ran = run_ctl(flag, env=ctl_env(fake.path))
    assert ran.returncode == 0 and ran.stdout == f"mytty-ctl {__version__}\n"
    assert fake.connections == 0


# -- issue 15 #7: one clear line with a stable code, never a traceback ------------------------
WAITS = (["wait", PANE, "--until", "idle"], ["agent", "wait", "J", "--until", "running"])


@pytest.mark.parametrize("value", ["1e20", "604800.5", "-5", "-0.001", "99999999999"])
def test_a_wait_beyond_a_week_or_below_zero_is_refused(value: str, fake: FakeController) -> None:
    # Issue 26 #7: it used to be clamped (or counted as 0) and sent.
    for args in WAITS:
        ran = run_ctl(*args, "--timeout-seconds", value, env=ctl_env(fake.path))
        assert ran.code == "invalid-request"
        assert ran.message == "--timeout-seconds must be between 0 and 604800"
    assert fake.connections == 0


def test_the_bounds_of_a_wait_are_accepted(fake: FakeController) -> None:
    for args in WAITS:
        for value, sent in (("604800", 604800.0), ("0", 0.0), ("0.25", 0.25)):
            ran = run_ctl(*args, f"--timeout-seconds={value}", env=ctl_env(fake.path))
            assert ran.returncode == 0, ran.stderr
            assert fake.decoded[-1]["timeoutSeconds"] == sent


def test_an_events_poll_beyond_600_seconds_is_refused(fake: FakeController) -> None:
    for value in ("100000", "600.5", "-1", "1e300"):
        ran = run_ctl("events", "--after", "1", "--timeout", value, env=ctl_env(fake.path))
        assert (ran.code, ran.message) == ("invalid-request", "--timeout must be between 0 and 600")
    assert fake.connections == 0
    ran = run_ctl("events", "--after", "1", "--timeout", "600", env=ctl_env(fake.path))
    assert ran.returncode == 0 and fake.decoded[-1]["timeoutSeconds"] == 600.0


@pytest.mark.parametrize(
    "args",
    [
        ["events", "--after", "9" * 5000],
        ["events", "--after", "²"],  # a digit to str.isdigit, not to int()
        ["events", "--after", "-1"],
        ["wait", PANE, "--until", "idle", "--timeout-seconds", "nan"],
        ["wait", PANE, "--until", "idle", "--timeout-seconds", "1e999"],
        ["wait", PANE, "--until", "idle", "--timeout-seconds", "x" * 5000],
    ],
)
def test_hostile_numbers_are_usage_errors(args: list[str], fake: FakeController) -> None:
    ran = run_ctl(*args, env=ctl_env(fake.path))
    assert ran.code == "usage"
    assert len(ran.message) < 300  # the value is shortened, not echoed in full
    assert fake.connections == 0


def test_a_non_utf8_argument_is_a_usage_error(fake: FakeController) -> None:
    proc = subprocess.run(
        [os.fsencode(CTL_EXE), b"send", PANE.encode(), b"caf\xe9"],
        env=ctl_env(fake.path),
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr == b"mytty-ctl: usage: argument 3 is not valid UTF-8 (byte 0xe9)\n"
    assert fake.connections == 0


def test_the_guide_has_every_command_and_the_key_names(workdir: object) -> None:
    ran = run_ctl("guide", env=ctl_env(None))
    assert ran.returncode == 0
    for name in NAMES:
        assert f"\n  {name}" in ran.stdout, name
    assert "\nSEND-KEY NAMES\n" in ran.stdout and "PPage" in ran.stdout and "ctrl" in ran.stdout
