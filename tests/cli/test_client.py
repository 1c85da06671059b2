"""What the ``mytty`` commands share (:mod:`mytty.cli.client`): requests built from the
declarations reach MYTTY_HOME's socket, and every failure becomes the one line and exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode, MyttyError

from .conftest import FakeController


@pytest.fixture
def home(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MYTTY_HOME", str(workdir))
    # mytty-ctl's variable must not steer the human CLI: it talks to its home's socket.
    monkeypatch.setenv("MYTTY_CONTROL_SOCKET", str(workdir / "elsewhere.sock"))
    return workdir


def test_a_request_is_built_from_its_declaration(home: Path) -> None:
    fake = FakeController(home, lambda body: b'{"type":"attention","items":[]}\n')
    try:
        reply = client.request("attention", {"acknowledgeAll": True})
    finally:
        fake.close()
    assert reply == {"type": "attention", "items": []}
    assert fake.decoded == [{"type": "attention", "acknowledgeAll": True}]


@pytest.mark.parametrize(
    ("answer", "code", "message"),
    [
        (
            b'{"type":"failure","code":"run-not-found","message":"no such run"}\n',
            "run-not-found",
            "no such run",
        ),
        (b'{"type":"failure","code":"frobbed","message":"odd"}\n', "internal-error", "odd"),
        (b"not json\n", "invalid-response", "the controller's reply is not JSON"),
    ],
)
def test_a_failure_is_a_mytty_error(home: Path, answer: bytes, code: str, message: str) -> None:
    fake = FakeController(home, lambda body: answer)
    try:
        with pytest.raises(MyttyError) as err:
            client.request("list")
    finally:
        fake.close()
    assert (err.value.code.value, err.value.message) == (code, message)


def test_no_controller_is_not_running(home: Path) -> None:
    with pytest.raises(MyttyError) as err:
        client.request("list")
    assert err.value.code is ErrorCode.NOT_RUNNING
    assert str(home / "control.sock") in err.value.message
    assert client.running() is False
    fake = FakeController(home, lambda body: b'{"type":"attention","items":[]}\n')
    try:
        assert client.running() is True
    finally:
        fake.close()


def test_a_refusing_client_hook_sends_nothing(home: Path) -> None:
    fake = FakeController(home)
    try:
        with pytest.raises(MyttyError) as err:
            client.request("resumeJobs", {"JOB": [f"J{n}" for n in range(1000)]})
    finally:
        fake.close()
    assert err.value.code is ErrorCode.USAGE
    assert fake.connections == 0


def test_exit_on_error_prints_the_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exited, client.exit_on_error():
        raise MyttyError(ErrorCode.RUN_NOT_FOUND, "no item belongs to run X")
    assert exited.value.exit_code == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "mytty: run-not-found: no item belongs to run X\n")


def test_an_os_error_is_internal_only_where_asked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PermissionError), client.exit_on_error():
        raise PermissionError("denied")
    with pytest.raises(typer.Exit), client.exit_on_error(os_errors=True):
        raise PermissionError("denied")
    assert capsys.readouterr().err == "mytty: internal-error: denied\n"


def test_die_and_fail_end_with_status_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exited:
        client.fail(ErrorCode.TIMEOUT, "too slow")
    assert exited.value.exit_code == 1
    with pytest.raises(typer.Exit):
        client.die("timeout: from the controller")
    client.say("starting the controller")
    assert capsys.readouterr().err == (
        "mytty: timeout: too slow\nmytty: timeout: from the controller\n"
        "mytty: starting the controller\n"
    )
