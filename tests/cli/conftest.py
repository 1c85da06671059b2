"""Fixtures for the mytty-ctl tests: a fake control socket that records what reaches it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CTL_EXE = str(Path(sys.executable).with_name("mytty-ctl"))

Reply = Callable[[bytes], bytes | None]


def list_reply(_body: bytes) -> bytes:
    return b'{"type":"list","panes":[]}\n'


class FakeController:
    """A Unix socket in a thread: records each request body and answers with ``reply``.

    ``reply`` returning None means: answer nothing and hold the connection open until
    ``close()`` (a controller that hangs).
    """

    def __init__(self, directory: Path, reply: Reply = list_reply) -> None:
        self.path = str(directory / "control.sock")
        self.reply = reply
        self.requests: list[bytes] = []
        self.connections = 0
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(self.path)
        self._sock.listen(16)
        self._closed = False
        self._release = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                body = data.split(b"\n", 1)[0]
                self.requests.append(body)
                answer = self.reply(body)
                if answer is None:
                    self._release.wait(60)  # hold the connection open, answer nothing
                    continue
                try:
                    conn.sendall(answer)
                except OSError:
                    pass

    @property
    def decoded(self) -> list[dict[str, Any]]:
        return [json.loads(r) for r in self.requests]

    def close(self) -> None:
        self._closed = True
        self._release.set()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()


@pytest.fixture
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="mtc", dir="/tmp") as d:
        yield Path(d)


@pytest.fixture
def fake(workdir: Path) -> Iterator[FakeController]:
    server = FakeController(workdir)
    try:
        yield server
    finally:
        server.close()


def ctl_env(socket_path: str | None, **extra: str) -> dict[str, str]:
    """An environment for mytty-ctl with no inherited mytty variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYTTY_")}
    env["MYTTY_HOME"] = "/nonexistent-mytty-home"
    if socket_path is not None:
        env["MYTTY_CONTROL_SOCKET"] = socket_path
    env.update(extra)
    return env


class Ran:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    @property
    def code(self) -> str:
        """The failure code of a ``mytty-ctl: <code>: <message>`` run (exit 1, stdout empty)."""
        assert self.returncode == 1, (self.returncode, self.stdout, self.stderr)
        assert self.stdout == ""
        assert self.stderr.endswith("\n"), self.stderr
        first = self.stderr.split("\n", 1)[0]
        prefix, code, message = first.split(": ", 2)
        assert prefix == "mytty-ctl" and message
        assert self.stderr.count("\n") == 1, self.stderr  # every failure is exactly one line
        return code

    @property
    def message(self) -> str:
        return self.stderr.split("\n", 1)[0].split(": ", 2)[2]


def run_ctl(
    *args: str, env: dict[str, str], cwd: str | None = None, timeout: float = 30.0, **kwargs: Any
) -> Ran:
    proc = subprocess.run(
        [CTL_EXE, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )
    return Ran(proc)
