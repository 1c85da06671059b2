"""mytty-ctl on its own: argument parsing, client-side checks, the wire requests it builds,
and how it reports replies and transport failures (a fake socket stands in for the controller).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from .conftest import FakeController, Ran, ctl_env, run_ctl

PANE = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
SUB_COMMANDS = (
    "list",
    "new-tab",
    "split",
    "send",
    "send-key",
    "read",
    "focus",
    "close-pane",
    "status",
    "env",
    "guide",
)


# -- help and guide need nothing -------------------------------------------------------------
@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"]])
def test_help_forms_print_usage_without_a_controller(argv: list[str], workdir: Path) -> None:
    env = ctl_env(str(workdir / "absent.sock"))
    ran = run_ctl(*argv, env=env)
    assert ran.returncode == 0 and ran.stderr == ""
    assert ran.stdout.startswith("usage: mytty-ctl")
    for name in SUB_COMMANDS:
        assert f"  {name}" in ran.stdout, name
    # Every form prints the same text.
    assert ran.stdout == run_ctl("--help", env=env).stdout


def test_guide_prints_the_manual_without_a_controller(workdir: Path) -> None:
    env = ctl_env(None)  # not even MYTTY_CONTROL_SOCKET
    ran = run_ctl("guide", env=env)
    assert ran.returncode == 0 and ran.stderr == ""
    headings = ["ENVIRONMENT", "CODEX SANDBOX NOTE", "HOOK INTEGRATIONS", "STAGED EXAMPLE"]
    positions = [ran.stdout.index(f"\n{h}\n") for h in headings]
    assert positions == sorted(positions)
    assert "MYTTY_SURFACE_ID" in ran.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["help"],  # only --help/-h are special; the bare word is an unknown command
        ["frobnicate"],
        ["split"],
        ["split", PANE, "diagonal"],
        ["split", PANE, "left", "extra"],
        ["send", PANE],
        ["send", PANE, "a", "b"],
        ["send-key", PANE],
        ["read"],
        ["read", PANE, PANE],
        ["focus"],
        ["close-pane"],
        ["new-tab", "positional"],
        ["new-tab", "--cwd"],
        ["split", PANE, "--command"],
        ["status", "a", "b", "--pane", PANE],
        ["status", "text", "--clear", "--pane", PANE],
        ["env", "extra"],
    ],
)
def test_bad_arguments_are_usage_errors_before_connecting(
    argv: list[str], fake: FakeController
) -> None:
    ran = run_ctl(*argv, env=ctl_env(fake.path))
    assert ran.code == "usage"
    assert fake.connections == 0


def test_status_without_a_pane_is_a_usage_error(fake: FakeController) -> None:
    assert run_ctl("status", "hello", env=ctl_env(fake.path)).code == "usage"
    assert run_ctl("status", "--clear", env=ctl_env(fake.path, MYTTY_SURFACE_ID="")).code == "usage"
    assert fake.connections == 0


# -- client-side validation that must happen before a connection ----------------------------
@pytest.mark.parametrize("argv", [["new-tab", "--command", ""], ["split", PANE, "--command", ""]])
def test_empty_command_is_rejected_before_connecting(
    argv: list[str], fake: FakeController, workdir: Path
) -> None:
    assert run_ctl(*argv, env=ctl_env(fake.path)).code == "invalid-command"
    # ... and no controller at all makes no difference.
    assert run_ctl(*argv, env=ctl_env(str(workdir / "absent.sock"))).code == "invalid-command"
    assert fake.connections == 0


@pytest.mark.parametrize(
    "text",
    [
        "x" * 101,
        "é" * 101,
        "\U0001f600" * 101,
        "",
        "two\nlines",
        "tab\there",
        "bell\x07",
        "zero\u200dwidth joiner",
        "del\x7f",
    ],
)
def test_invalid_status_is_rejected_before_connecting(text: str, fake: FakeController) -> None:
    assert run_ctl("status", text, "--pane", PANE, env=ctl_env(fake.path)).code == "invalid-status"
    assert fake.connections == 0


@pytest.mark.parametrize("text", ["x" * 100, "é" * 100, "\U0001f600" * 100, "running tests: 3/7"])
def test_status_up_to_100_scalars_is_sent(text: str, fake: FakeController) -> None:
    ran = run_ctl("status", text, "--pane", PANE, env=ctl_env(fake.path))
    assert ran.returncode == 0, ran.stderr
    assert fake.decoded == [{"type": "setPaneStatus", "paneID": PANE, "status": text}]


def test_request_over_64_kib_is_refused_before_connecting(fake: FakeController) -> None:
    ran = run_ctl("send", PANE, "x" * (64 * 1024), env=ctl_env(fake.path))
    assert ran.code == "request-too-large"
    assert fake.connections == 0


def test_request_of_exactly_64_kib_is_sent(fake: FakeController) -> None:
    overhead = len(
        json.dumps(
            {"type": "send", "paneID": PANE, "text": "", "pressEnter": False}, separators=(",", ":")
        )
    )
    text = "y" * (64 * 1024 - overhead)
    ran = run_ctl("send", PANE, text, env=ctl_env(fake.path))
    assert ran.returncode == 0, ran.stderr
    assert len(fake.requests[0]) == 64 * 1024
    assert fake.decoded[0]["text"] == text


# -- the requests that reach the wire ------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["list"], {"type": "list"}),
        (["new-tab"], {"type": "newTab"}),
        (
            ["new-tab", "--cwd", "/tmp", "--command", "echo hi"],
            {"type": "newTab", "workingDirectory": "/tmp", "command": "echo hi"},
        ),
        (["split", PANE], {"type": "split", "paneID": PANE, "direction": "auto"}),
        (
            ["split", "--cwd", "/", PANE, "down", "--command", "--cwd"],
            {
                "type": "split",
                "paneID": PANE,
                "direction": "down",
                "workingDirectory": "/",
                "command": "--cwd",
            },
        ),
        (
            ["send", PANE, "hello\nworld"],
            {"type": "send", "paneID": PANE, "text": "hello\nworld", "pressEnter": False},
        ),
        (
            ["send", "--enter", PANE, "-x"],
            {"type": "send", "paneID": PANE, "text": "-x", "pressEnter": True},
        ),
        (
            ["send-key", PANE, "c", "--modifiers", "control,,shift,"],
            {"type": "sendKey", "paneID": PANE, "key": "c", "modifiers": ["control", "shift"]},
        ),
        (
            ["send-key", PANE, "escape"],
            {"type": "sendKey", "paneID": PANE, "key": "escape", "modifiers": []},
        ),
        (["read", PANE.lower()], {"type": "read", "paneID": PANE.lower()}),
        (["focus", PANE], {"type": "focus", "paneID": PANE}),
        (["close-pane", PANE], {"type": "closePane", "paneID": PANE}),
        (
            ["status", "phase 1", "--pane", PANE],
            {"type": "setPaneStatus", "paneID": PANE, "status": "phase 1"},
        ),
        (["status", "--clear", "--pane", PANE], {"type": "setPaneStatus", "paneID": PANE}),
        (["env"], {"type": "env"}),
        (["env", "--json"], {"type": "env"}),
    ],
)
def test_wire_requests(argv: list[str], expected: dict[str, object], fake: FakeController) -> None:
    ran = run_ctl(*argv, env=ctl_env(fake.path))
    assert ran.returncode == 0, ran.stderr
    assert fake.decoded == [expected]
    # Compact JSON on one line.
    compact = json.dumps(fake.decoded[0], separators=(",", ":"), ensure_ascii=False).encode()
    assert fake.requests[0] == compact


def test_status_defaults_to_the_callers_own_pane(fake: FakeController) -> None:
    env = ctl_env(fake.path, MYTTY_SURFACE_ID=PANE)
    assert run_ctl("status", "working", env=env).returncode == 0
    assert run_ctl("status", "--clear", env=env).returncode == 0
    assert fake.decoded == [
        {"type": "setPaneStatus", "paneID": PANE, "status": "working"},
        {"type": "setPaneStatus", "paneID": PANE},
    ]


def test_relative_cwd_is_made_absolute_by_the_client(fake: FakeController, workdir: Path) -> None:
    (workdir / "sub dir").mkdir()
    ran = run_ctl("new-tab", "--cwd", "sub dir", env=ctl_env(fake.path), cwd=str(workdir))
    assert ran.returncode == 0, ran.stderr
    assert fake.decoded == [{"type": "newTab", "workingDirectory": str(workdir / "sub dir")}]


def test_non_ascii_text_travels_as_utf8(fake: FakeController) -> None:
    text = 'héllo 日本 \U0001f600 "q" \\'
    assert run_ctl("send", PANE, text, env=ctl_env(fake.path)).returncode == 0
    assert fake.requests[0].decode("utf-8") == json.dumps(
        {"type": "send", "paneID": PANE, "text": text, "pressEnter": False},
        ensure_ascii=False,
        separators=(",", ":"),
    )


# -- how replies come back ---------------------------------------------------------------------
def test_success_is_one_sorted_compact_json_line(workdir: Path) -> None:
    reply = {"type": "list", "panes": [{"title": "é", "paneID": PANE, "isActive": True}]}
    server = FakeController(workdir, lambda _b: json.dumps(reply).encode() + b"\n")
    try:
        ran = run_ctl("list", env=ctl_env(server.path))
    finally:
        server.close()
    assert ran.returncode == 0 and ran.stderr == ""
    assert (
        ran.stdout
        == json.dumps(reply, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    )


def test_failure_reply_goes_to_stderr_with_its_code(workdir: Path) -> None:
    server = FakeController(
        workdir, lambda _b: b'{"type":"failure","code":"pane-not-found","message":"no pane X"}\n'
    )
    try:
        ran = run_ctl("read", PANE, env=ctl_env(server.path))
    finally:
        server.close()
    assert ran.code == "pane-not-found"
    assert ran.message == "no pane X"


@pytest.mark.parametrize("answer", [b"not json\n", b"[1,2]\n", b""])
def test_unusable_reply_is_invalid_response(answer: bytes, workdir: Path) -> None:
    server = FakeController(workdir, lambda _b: answer)
    try:
        ran = run_ctl("list", env=ctl_env(server.path))
    finally:
        server.close()
    assert ran.code == "invalid-response"


def test_controller_that_never_answers_is_a_timeout(workdir: Path) -> None:
    server = FakeController(workdir, lambda _b: None)
    try:
        ran = run_ctl("list", env=ctl_env(server.path), timeout=20)
    finally:
        server.close()
    assert ran.code == "timeout"


# -- transport failures ---------------------------------------------------------------------------
def test_no_controller_is_not_running_naming_mytty_start(workdir: Path) -> None:
    ran = run_ctl("list", env=ctl_env(str(workdir / "absent.sock")))
    assert ran.code == "not-running"
    assert "mytty start" in ran.message


def test_stale_socket_file_is_not_running(workdir: Path) -> None:
    path = workdir / "stale.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()  # the file stays, nobody listens: ECONNREFUSED
    assert path.exists()
    ran = run_ctl("list", env=ctl_env(str(path)))
    assert ran.code == "not-running"
    assert "mytty start" in ran.message


def test_socket_from_mytty_home_when_no_socket_variable(
    fake: FakeController, workdir: Path
) -> None:
    env = ctl_env(None, MYTTY_HOME=str(workdir))  # the fake listens on <workdir>/control.sock
    assert run_ctl("list", env=env).returncode == 0
    assert fake.connections == 1


def run_ctl_as(uid: int, argv: list[str], env: dict[str, str]) -> Ran:
    """Run mytty-ctl's main function in a forked child that switched to ``uid`` first."""
    from mytty.cli import ctl

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 99
        try:
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - pytest replaced the sys streams
            sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.environ.clear()
            os.environ.update(env)
            code = ctl.run(argv)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r) as out, os.fdopen(err_r) as err:
        stdout, stderr = out.read(), err.read()
    _, status = os.waitpid(pid, 0)
    return Ran(subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), stdout, stderr))


@pytest.mark.skipif(os.geteuid() != 0, reason="NOT RUN: needs root to switch to uid 65534")
def test_socket_of_another_user_is_permission_denied(fake: FakeController, workdir: Path) -> None:
    os.chmod(workdir, 0o755)
    os.chmod(fake.path, 0o600)
    assert stat.S_IMODE(os.stat(fake.path).st_mode) == 0o600
    ran = run_ctl_as(65534, ["list"], ctl_env(fake.path))
    assert ran.code == "permission-denied"
    assert fake.connections == 0


def test_pane_ids_are_passed_through_unchanged(fake: FakeController) -> None:
    odd = str(uuid.uuid4())  # lower case: the controller normalizes, the client must not
    assert run_ctl("focus", odd, env=ctl_env(fake.path)).returncode == 0
    assert fake.decoded == [{"type": "focus", "paneID": odd}]
