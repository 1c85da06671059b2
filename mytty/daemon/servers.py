"""One-request-per-connection Unix socket servers (control and event sockets).

Both sockets share the framing: one UTF-8 JSON request terminated by a newline (or EOF), at
most 64 KiB, one JSON reply line, close. The file is 0600 and every peer's uid is checked.
A client that does not finish its request within REQUEST_READ_TIMEOUT_S (including one that
trickles bytes) is dropped without a reply, and never blocks anybody else.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from mytty.protocol.limits import (
    MAX_REQUEST_BYTES,
    REQUEST_READ_TIMEOUT_S,
    RESPONSE_WRITE_TIMEOUT_S,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Peer:
    pid: int
    uid: int


class RequestTooLarge(Exception):
    pass


Handler = Callable[[bytes, Peer], Awaitable[bytes]]


def peer_credentials(sock: socket.socket) -> Peer:
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return Peer(pid=pid, uid=uid)


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """Read up to the first newline or EOF; raise RequestTooLarge past the limit."""
    buf = bytearray()
    while True:
        chunk = await reader.read(65536)
        if not chunk:
            break
        nl = chunk.find(b"\n")
        if nl >= 0:
            buf += chunk[:nl]
            if len(buf) > MAX_REQUEST_BYTES:
                raise RequestTooLarge
            break
        buf += chunk
        if len(buf) > MAX_REQUEST_BYTES:
            raise RequestTooLarge
    return bytes(buf)


class OneShotServer:
    """Serve ``handler`` on a Unix socket at ``path``."""

    def __init__(
        self,
        path: Path,
        handler: Handler,
        *,
        too_large_reply: bytes,
        foreign_peer_reply: bytes,
        name: str,
    ) -> None:
        self.path = path
        self._handler = handler
        self._too_large = too_large_reply
        self._foreign = foreign_peer_reply
        self._name = name
        self._server: asyncio.base_events.Server | None = None
        self._uid = os.getuid()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(
                self._on_client, path=str(self.path), limit=MAX_REQUEST_BYTES + 1, backlog=512
            )
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            try:
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
            except TimeoutError:  # pragma: no cover
                pass
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve_one(reader, writer)
        except asyncio.CancelledError:
            pass
        except Exception:  # pragma: no cover - the handler maps its own errors
            log.exception("%s: unexpected error while serving a client", self._name)
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            try:
                # asyncio.timeout, unlike wait_for, does not spawn a task per call: this is
                # the per-connection hot path of the event socket.
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()
            except (TimeoutError, OSError, ConnectionError):
                pass

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        peer = peer_credentials(sock)
        if peer.uid != self._uid:
            log.warning("%s: refused a peer with uid %d", self._name, peer.uid)
            # Take (and ignore) its request first: answering before it has sent would make
            # its send fail with EPIPE, and the refusal would never reach it.
            try:
                async with asyncio.timeout(REQUEST_READ_TIMEOUT_S):
                    await read_request(reader)
            except (TimeoutError, RequestTooLarge, ConnectionError, OSError):
                pass
            await self._write(writer, self._foreign)
            return
        try:
            async with asyncio.timeout(REQUEST_READ_TIMEOUT_S):
                body = await read_request(reader)
        except TimeoutError:
            return  # silent drop: a client that never finishes its request gets nothing
        except RequestTooLarge:
            await self._write(writer, self._too_large)
            return
        except (ConnectionError, OSError):
            return
        reply = await self._handler(body, peer)
        await self._write(writer, reply)

    async def _write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        try:
            writer.write(data)
            async with asyncio.timeout(RESPONSE_WRITE_TIMEOUT_S):
                await writer.drain()
        except (TimeoutError, ConnectionError, OSError):
            pass
