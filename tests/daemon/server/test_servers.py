"""OneShotServer against real Unix sockets: hang-ups end waits, and only waits.

The end-to-end tests (tests/e2e/test_abandoned_clients.py) count the controller's descriptors;
these check the server's own decisions with a handler that records what happened to it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from mytty.daemon.server.scope import CURRENT, abandonable
from mytty.daemon.server.sockets import OneShotServer, Peer

Handler = Callable[[bytes, Peer], Awaitable[bytes]]


def serve(handler: Handler, scenario: Callable[[str], Awaitable[None]]) -> None:
    async def main() -> None:
        path = Path(tempfile.mkdtemp(prefix="mtsrv", dir="/tmp")) / "s.sock"
        server = OneShotServer(
            path,
            handler,
            too_large_reply=b"big\n",
            foreign_peer_reply=b"foreign\n",
            name="test",
            watch_hangups=True,
        )
        await server.start()
        try:
            await asyncio.wait_for(scenario(str(path)), 20)
        finally:
            await server.close()

    asyncio.run(main())


async def connect(
    path: str, *, half_close: bool = True, body: bytes = b'{"type":"x"}\n'
) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    await asyncio.get_running_loop().sock_connect(s, path)
    await asyncio.get_running_loop().sock_sendall(s, body)
    if half_close:
        s.shutdown(socket.SHUT_WR)
    return s


def test_a_hang_up_ends_a_waiting_request_without_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    entered = asyncio.Event()
    outcome: list[str] = []

    async def handler(body: bytes, peer: Peer) -> bytes:
        try:
            with abandonable():
                entered.set()
                await asyncio.sleep(30)
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise
        return b"late\n"

    async def scenario(path: str) -> None:
        s = await connect(path)
        await entered.wait()
        s.close()
        while not outcome:
            await asyncio.sleep(0.01)

    with caplog.at_level(logging.DEBUG):
        serve(handler, scenario)
    assert outcome == ["cancelled"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_a_half_close_is_no_hang_up() -> None:
    """The half-closed wait outlives a real hang-up that came after it.

    The server learns of hang-ups from one level-triggered epoll: had it taken the half-close
    for one, it would have cancelled that wait no later than the later client's real one.
    """
    entered = {"half": asyncio.Event(), "closed": asyncio.Event()}
    cancelled = asyncio.Event()
    release = asyncio.Event()

    async def handler(body: bytes, peer: Peer) -> bytes:
        which = json.loads(body)["type"]
        try:
            with abandonable():
                entered[which].set()
                await release.wait()
        except asyncio.CancelledError:
            if which == "closed":
                cancelled.set()
            raise
        return b'{"answered":true}\n'

    async def scenario(path: str) -> None:
        loop = asyncio.get_running_loop()
        s = await connect(path, half_close=True, body=b'{"type":"half"}\n')
        await entered["half"].wait()
        gone = await connect(path, body=b'{"type":"closed"}\n')
        await entered["closed"].wait()
        gone.close()
        await cancelled.wait()
        release.set()
        data = await loop.sock_recv(s, 100)
        s.close()
        assert json.loads(data) == {"answered": True}

    serve(handler, scenario)


def test_work_that_is_not_a_wait_runs_to_its_end() -> None:
    entered = asyncio.Event()
    finished = asyncio.Event()
    gone_then_wait: list[str] = []

    async def handler(body: bytes, peer: Peer) -> bytes:
        # A send or a spawn (not abandonable) still at work when the server sees the hang-up.
        entered.set()
        scope = CURRENT.get()
        assert scope is not None
        deadline = asyncio.get_running_loop().time() + 10
        while not scope.gone and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.005)
        finished.set()
        try:
            with abandonable():  # the client left meanwhile: this wait never starts
                gone_then_wait.append("waited")
                await asyncio.sleep(30)
        except asyncio.CancelledError:
            gone_then_wait.append("refused")
            raise
        return b"x\n"

    async def scenario(path: str) -> None:
        s = await connect(path)
        await entered.wait()
        s.close()
        await finished.wait()
        while not gone_then_wait:
            await asyncio.sleep(0.01)

    serve(handler, scenario)
    assert gone_then_wait == ["refused"]


EMFILE_SCRIPT = r"""
import asyncio, json, logging, resource, socket, sys, tempfile
from pathlib import Path
from mytty.daemon.server.sockets import OneShotServer

logging.basicConfig(level=logging.INFO, stream=sys.stderr)
release = asyncio.Event()

async def handler(body, peer):
    await release.wait()
    return b'{"served":true}\n'

async def main():
    path = Path(tempfile.mkdtemp(prefix="mtemf", dir="/tmp")) / "s.sock"
    # No connection share: only the real descriptor limit stops it (the EMFILE path).
    server = OneShotServer(path, handler, too_large_reply=b"x\n", foreign_peer_reply=b"y\n",
                           name="test", max_connections=100_000)
    await server.start()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    # The clients live in a child process (with the usual limit): this one has no
    # descriptors to spare for them.
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CLIENTS, str(path), stdout=asyncio.subprocess.PIPE,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)))
    line = await proc.stdout.readline()  # the clients report once every connect returned
    release.set()
    out, _ = await proc.communicate()
    await server.close()
    print((line + out).decode().strip())

CLIENTS = '''
import json, socket, sys, time
held, refused = [], 0
for _ in range(150):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(sys.argv[1]); s.sendall(b'{}\\n'); s.shutdown(socket.SHUT_WR)
    except OSError:
        refused += 1; s.close(); continue
    held.append(s)
# A refused client sees its connection closed at once (EOF, or a reset: its request was never
# read), not a hang: wait (with a deadline) until the set of closed ones stops growing.
import select
closed, steady, deadline = 0, 0, time.monotonic() + 5
while steady < 4 and time.monotonic() < deadline:
    now = len(select.select(held, [], [], 0.05)[0])
    steady = steady + 1 if now == closed else 0
    closed = now
quick = 0
for s in held:
    s.settimeout(0.05)
    try:
        if s.recv(100) == b"":
            quick += 1
    except ConnectionResetError:
        quick += 1
    except (TimeoutError, OSError):
        pass
print(json.dumps({"connected": len(held), "closed_early": quick, "refused": refused}), flush=True)
served = 0
for s in held:
    s.settimeout(5)
    try:
        if s.recv(100).startswith(b'{"served"'):
            served += 1
    except OSError:
        pass
print(json.dumps({"served": served}))
'''

asyncio.run(main())
"""


def test_at_emfile_new_clients_are_refused_at_once_and_held_ones_served(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "emfile.py"
    script.write_text(EMFILE_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    # Some were taken (as many as descriptors allowed), the rest closed at once, none hang.
    assert first["closed_early"] > 0 and second["served"] > 0, (first, second)
    assert second["served"] + first["closed_early"] + first["refused"] >= 140, (first, second)
    assert done.stderr.count("refusing new connections") <= 2, done.stderr
    assert len(done.stderr) < 5_000, done.stderr
