"""Fixtures for the hook helper tests: captured payloads, a fake event socket, the executable."""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
HOOK_EXE = Path(sys.executable).with_name("mytty-agent-hook")
SURFACE_ID = "5B0C1D2E-3F40-4152-8364-758697A8B9CA"
CAPABILITY = "C0FFEE" * 10 + "ABCD"  # 64 upper-case hex characters, like a real capability
OK_REPLY = b'{"ok":true,"inserted":true}\n'


def load_payloads(provider: str) -> dict[str, Any]:
    """The fixture file of one provider: {"captured": {...}, "reference": {...}, ...}."""
    return json.loads((FIXTURES / f"{provider}.json").read_text(encoding="utf-8"))


def with_fields(payload: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of ``payload`` with keys replaced; a value of ``...`` removes the key."""
    out = dict(payload)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


class FakeEventServer:
    """A tiny event socket in a thread. Modes:

    - ``reply``: read one line, answer ``reply_bytes``, close;
    - ``wedge``: accept, read, never answer (the connection stays open until stop());
    - ``reset_first``: the first connection is closed with its request unread (the client sees
      ECONNRESET); later ones are answered normally.
    """

    def __init__(self, path: Path, mode: str = "reply", reply_bytes: bytes = OK_REPLY) -> None:
        self.path = path
        self.mode = mode
        self.reply_bytes = reply_bytes
        self.lines: list[bytes] = []
        self.connections = 0
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(path))
        self._sock.listen(16)
        self._sock.settimeout(0.05)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            try:
                self._handle(conn)
            except OSError:
                conn.close()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        if self.mode == "reset_first" and self.connections == 1:
            select.select([conn], [], [], 5)  # the request has arrived; drop it unread
            conn.close()
            return
        data = b""
        while b"\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        self.lines.append(data.split(b"\n", 1)[0])
        if self.mode == "wedge":
            self._held.append(conn)
            return
        conn.sendall(self.reply_bytes)
        conn.close()

    def envelopes(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines]

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for conn in self._held:
            conn.close()
        self._sock.close()


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    """A short directory for Unix sockets (pytest's tmp_path can exceed the 108-byte limit)."""
    path = Path(tempfile.mkdtemp(prefix="mh-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def event_server(sock_dir: Path) -> Iterator[FakeEventServer]:
    server = FakeEventServer(sock_dir / "event.sock")
    try:
        yield server
    finally:
        server.stop()


def pane_env(socket_path: Path | str | None, **extra: str | None) -> dict[str, str]:
    """A clean environment (nothing inherited from a mytty pane the tests may run in)."""
    env: dict[str, str | None] = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
    }
    if socket_path is not None:
        env["MYTTY_EVENT_SOCKET"] = str(socket_path)
        env["MYTTY_SURFACE_ID"] = SURFACE_ID
        env["MYTTY_EVENT_CAPABILITY"] = CAPABILITY
    env.update(extra)
    return {k: v for k, v in env.items() if v is not None}


def run_hook(
    args: list[str],
    stdin: bytes | dict[str, Any],
    env: dict[str, str],
    *,
    executable: Path | None = None,
    timeout: float = 20,
) -> subprocess.CompletedProcess[bytes]:
    """Run the real helper executable with ``args`` and ``stdin``."""
    exe = executable or HOOK_EXE
    assert exe.exists(), f"{exe} is missing: install the package (pip install -e .)"
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    return subprocess.run(
        [str(exe), *args], input=data, env=env, capture_output=True, check=False, timeout=timeout
    )
