"""One-request-per-connection Unix socket servers (control and event sockets).

Both sockets share the framing: one UTF-8 JSON request terminated by a newline (or EOF), at
most 64 KiB, one JSON reply line, close. The file is 0600 and every peer's uid is checked.
A client that does not finish its request within REQUEST_READ_TIMEOUT_S (including one that
trickles bytes) is dropped without a reply, and never blocks anybody else.

Descriptors are what a hostile or careless client can exhaust, so:

* each server holds at most ``Budget.limit`` connections (derived from the process's
  descriptor limit, leaving room for the store, tmux and /proc reads); past that, a new
  connection is closed at once without a reply, and the log says so once per episode;
* the budget is shared fairly (:mod:`mytty.daemon.server.budget`): one peer (a process, by its
  SO_PEERCRED pid) holds at most a share, requests that may wait never take the reserve kept
  for short ones, and a request past a share is answered ``too-many-requests`` naming the
  limits (``Rules.reply``), never left with a closed connection that looks like a dead
  controller;
* should ``accept`` itself hit EMFILE, a spare descriptor kept for that purpose is released to
  take the connection off the queue and close it (so clients are refused, not left hanging),
  and the listener pauses briefly instead of spinning;
* a client that hangs up while its request waits (``wait``, ``agent wait``, ``events``) ends
  the wait: a hang-up is a full close (EPOLLHUP), so a client that only shut down its sending
  side, as every mytty client does after its request, still gets its answer;
* a reply that cannot be written within RESPONSE_WRITE_TIMEOUT_S (a client that never reads)
  aborts the connection and frees its buffer.

A handler may answer with a :class:`HeldReply` instead of bytes (a PermissionRequest hook that
waits for its decision): its first line is written at once, the rest when it is ready, and a
client that hangs up meanwhile ends the wait (as for the control socket's long polls).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import select
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from mytty.daemon import procfs
from mytty.daemon.server import budget as budgeting
from mytty.daemon.server.budget import Admission, Budget, Entry, Ledger, Rules
from mytty.daemon.server.scope import CURRENT, RequestScope
from mytty.protocol.limits import (
    MAX_REQUEST_BYTES,
    REQUEST_READ_TIMEOUT_S,
    RESPONSE_WRITE_TIMEOUT_S,
)

log = logging.getLogger(__name__)

#: Descriptors kept free for everything that is not a client connection (the store's
#: connections, tmux reconnects, /proc reads, log rotation).
RESERVED_FDS = 48
#: Never fewer than this many connections per server, however low the limit.
MIN_CONNECTIONS = 8
#: At most one "refusing connections" log line per server in this many seconds.
REFUSAL_LOG_INTERVAL_S = 60.0
#: How long the listener pauses after accept() itself failed for lack of descriptors.
ACCEPT_PAUSE_S = 0.1
#: Connections taken off the listen queue per readiness callback (fairness with the rest).
ACCEPT_BURST = 64
#: A refused client whose request has not arrived yet gets this long to send it before it is
#: closed unanswered.
REFUSAL_READ_S = 1.0


@dataclass(frozen=True, slots=True)
class Peer:
    pid: int
    uid: int


class RequestTooLarge(Exception):
    pass


@dataclass(frozen=True, slots=True)
class HeldReply:
    """A reply in two parts: ``first`` at once, then what ``rest()`` returns (None: nothing)."""

    first: bytes
    rest: Callable[[], Awaitable[bytes | None]]


Handler = Callable[[bytes, Peer], Awaitable["bytes | HeldReply"]]


def peer_credentials(sock: socket.socket) -> Peer:
    pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    return Peer(pid=pid, uid=uid)


def request_now(conn: socket.socket) -> tuple[bytes | None, bytes]:
    """The request when it is complete in the socket already: (body, b""); else (None, what
    was read of it), for :func:`read_request` to go on from. Raises RequestTooLarge past the
    limit, OSError as ``recv`` does.

    A hook sends its line and half-closes at once, so by the time it is accepted its request
    has nearly always arrived: no await, no timeout scope and no second ``recv`` for it then.
    """
    try:
        chunk = conn.recv(65536)
    except (BlockingIOError, InterruptedError):
        return None, b""
    nl = chunk.find(b"\n")
    if nl >= 0:
        if nl > MAX_REQUEST_BYTES:
            raise RequestTooLarge
        return chunk[:nl], b""
    if not chunk:
        return b"", b""
    if len(chunk) > MAX_REQUEST_BYTES:
        raise RequestTooLarge
    return None, chunk


async def read_request(conn: socket.socket, start: bytes = b"") -> bytes:
    """Read up to the first newline or EOF (after ``start``, read already); raise
    RequestTooLarge past the limit.

    On the connection's own (non-blocking) socket, not through an asyncio transport and
    streams: one connection per request makes their setup and teardown (a transport, a
    protocol, two stream objects, ``wait_closed``) the largest share of a hook event's cost.
    ``sock_recv`` reads at once what has arrived and waits only when nothing has.
    """
    loop = asyncio.get_running_loop()
    buf = bytearray(start)
    while True:
        chunk = await loop.sock_recv(conn, 65536)
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


def raise_descriptor_limit(ceiling: int = 65536) -> None:
    """Lift the soft RLIMIT_NOFILE towards the hard one (asyncio uses epoll, not select).

    A login session's soft limit is often 1024, which a few hundred long polls would fill.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):  # pragma: no cover - keep the limit we have
            pass


def connection_limit(servers: int = 2) -> int:
    """How many connections each of ``servers`` servers may hold under RLIMIT_NOFILE."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    in_use = procfs.fd_count(os.getpid())
    if in_use is None:  # pragma: no cover - no /proc
        in_use = 32
    return max(MIN_CONNECTIONS, (soft - in_use - RESERVED_FDS) // servers)


class _HangupWatch:
    """Tells which waiting connections were closed by their peer (EPOLLHUP), on one epoll fd.

    Registered with no event bits, epoll reports only hang-ups and errors: a peer that shut
    down its writing side (a half-close) is not reported, a peer that closed is.
    """

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._scopes: dict[int, RequestScope] = {}
        asyncio.get_running_loop().add_reader(self._epoll.fileno(), self._ready)

    def watch(self, fd: int, scope: RequestScope) -> None:
        if fd < 0:  # the transport closed the socket already (a failed write): the client is gone
            scope.hang_up()
            return
        try:
            self._epoll.register(fd, 0)
        except OSError:  # pragma: no cover - already closed
            return
        self._scopes[fd] = scope

    def unwatch(self, fd: int) -> None:
        if self._scopes.pop(fd, None) is not None:
            try:
                self._epoll.unregister(fd)
            except OSError:  # pragma: no cover
                pass

    def _ready(self) -> None:
        for fd, _mask in self._epoll.poll(0):
            scope = self._scopes.get(fd)
            self.unwatch(fd)
            if scope is not None:
                scope.hang_up()

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self._epoll.fileno())
        self._epoll.close()
        self._scopes.clear()


class OneShotServer:
    """Serve ``handler`` on a Unix socket at ``path``.

    ``watch_hangups`` ends a waiting request when its client closes (the control socket's
    long polls); the event socket's requests are too short to be worth the two syscalls.
    ``rules`` let the budget tell short requests from the rest and answer refusals (the control
    socket's ``too-many-requests``); without them a refused connection is closed unanswered.
    """

    def __init__(
        self,
        path: Path,
        handler: Handler,
        *,
        too_large_reply: bytes,
        foreign_peer_reply: bytes,
        name: str,
        watch_hangups: bool = False,
        max_connections: int | None = None,
        rules: Rules | None = None,
    ) -> None:
        self.path = path
        self._handler = handler
        self._too_large = too_large_reply
        self._foreign = foreign_peer_reply
        self._name = name
        self._watch_hangups = watch_hangups
        self._max_connections = max_connections
        self._rules = rules
        self._refusal_tasks: set[asyncio.Task[None]] = set()
        self._limit = MIN_CONNECTIONS
        self._ledger = Ledger(Budget.of(MIN_CONNECTIONS), name)
        self._sock: socket.socket | None = None
        self._uid = os.getuid()
        self._tasks: set[asyncio.Task[None]] = set()
        self._hangups: _HangupWatch | None = None
        self._spare_fd: int | None = None
        self._last_refusal_log = float("-inf")
        self._refusing = False
        self._paused = False

    @property
    def connections(self) -> int:
        return len(self._tasks)

    @property
    def budget(self) -> Budget:
        return self._ledger.budget

    async def start(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        # The kernel's most (somaxconn, 4096 by default): a burst of clients waits in the queue
        # instead of being refused with EAGAIN, which a client takes for a dead controller.
        sock.listen(socket.SOMAXCONN)
        sock.setblocking(False)
        self._sock = sock
        raise_descriptor_limit()
        self._limit = self._max_connections or connection_limit()
        self._ledger = Ledger(Budget.of(self._limit), self._name)
        self._spare_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        if self._watch_hangups:
            self._hangups = _HangupWatch()
        asyncio.get_running_loop().add_reader(sock.fileno(), self._accept_ready)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        if self._sock is not None:
            if not self._paused:
                loop.remove_reader(self._sock.fileno())
            self._sock.close()
            self._sock = None
            for task in [*self._tasks, *self._refusal_tasks]:
                task.cancel()
            await asyncio.gather(*self._tasks, *self._refusal_tasks, return_exceptions=True)
        if self._hangups is not None:
            self._hangups.close()
            self._hangups = None
        if self._spare_fd is not None:
            os.close(self._spare_fd)
            self._spare_fd = None
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    # -- accepting ------------------------------------------------------------------------------
    def _accept_ready(self) -> None:
        sock = self._sock
        if sock is None:
            return
        for _ in range(ACCEPT_BURST):
            try:
                conn, _addr = sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self._out_of_descriptors(sock)
                else:  # pragma: no cover - ECONNABORTED and friends: next one
                    log.debug("%s: accept failed: %s", self._name, exc)
                return
            try:
                peer = peer_credentials(conn)
            except OSError:  # pragma: no cover - the peer vanished first
                conn.close()
                continue
            request = self._request_if_in(conn)
            entry, why = self._ledger.entry(peer.pid, request, self._rules)
            if entry is Entry.REFUSE:
                self._refuse_busy(conn, peer.pid, why, answerable=request is not None)
                continue
            if self._refusing:
                self._refusing = False
                log.info("%s: accepting connections again", self._name)
            conn.setblocking(False)
            self._ledger.connections[peer.pid] += 1
            admission = Admission(self._ledger, peer.pid, unsorted=entry is Entry.SERVE_UNSORTED)
            if admission.unsorted:
                self._ledger.unsorted += 1
            task = asyncio.get_running_loop().create_task(self._on_client(conn, peer, admission))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _request_if_in(self, conn: socket.socket) -> bytes | None:
        """The connection's whole request line when it has arrived already (peeked, not read)."""
        if self._rules is None:
            return None
        try:
            head = conn.recv(MAX_REQUEST_BYTES + 1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except OSError:
            return None
        end = head.find(b"\n")
        return head[:end] if end >= 0 else None

    def _refuse(self, conn: socket.socket, why: str) -> None:
        conn.close()
        self._note_refusal(why)

    def _refuse_busy(self, conn: socket.socket, pid: int, why: str, *, answerable: bool) -> None:
        """Answer ``too-many-requests`` (``Rules.reply``) instead of serving ``conn``.

        The request is read first (closing with it unread, or before the client sent it,
        would make the client see a reset instead of the answer): right here when it is in
        (``answerable``), else by a small task allowed :data:`REFUSAL_READ_S`, while the peer
        has fewer such connections than its share and the budget has room. Otherwise, or
        without rules, the connection is closed unanswered.
        """
        self._note_refusal(why)
        if self._rules is None:
            conn.close()
            return
        reply = self._rules.reply(why)
        if answerable:
            try:
                conn.recv(MAX_REQUEST_BYTES + 1, socket.MSG_DONTWAIT)
                conn.send(reply, socket.MSG_DONTWAIT)
            except OSError:
                pass
            conn.close()
            return
        if not self._ledger.may_refuse_later(pid):
            conn.close()
            return
        self._ledger.refusing[pid] += 1
        conn.setblocking(False)
        task = asyncio.get_running_loop().create_task(self._refuse_later(conn, pid, reply))
        self._refusal_tasks.add(task)
        task.add_done_callback(self._refusal_tasks.discard)

    async def _refuse_later(self, conn: socket.socket, pid: int, reply: bytes) -> None:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(REFUSAL_READ_S):
                data = b""
                while b"\n" not in data and len(data) <= MAX_REQUEST_BYTES:
                    chunk = await loop.sock_recv(conn, 65536)
                    if not chunk:
                        break
                    data += chunk
                await loop.sock_sendall(conn, reply)
        except (TimeoutError, OSError):
            pass
        finally:
            conn.close()
            Ledger.release(pid, self._ledger.refusing)

    def _note_refusal(self, why: str) -> None:
        now = time.monotonic()
        if now - self._last_refusal_log >= REFUSAL_LOG_INTERVAL_S:
            self._last_refusal_log = now
            self._refusing = True  # so the recovery is logged once too, and no more often
            log.warning(
                "%s: refusing new connections: %s (limit %d; descriptor limit %d)",
                self._name,
                why,
                self._limit,
                resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            )

    def _out_of_descriptors(self, sock: socket.socket) -> None:
        """accept() failed with EMFILE: refuse the waiting clients with the spare one, pause."""
        if self._spare_fd is not None:
            os.close(self._spare_fd)
            self._spare_fd = None
            # The one free descriptor takes each waiting client off the queue in turn.
            for _ in range(ACCEPT_BURST):
                try:
                    conn, _addr = sock.accept()
                except OSError:
                    break
                self._refuse(conn, "the process is out of file descriptors")
            try:
                self._spare_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                self._spare_fd = None
        else:  # no spare left: the client waits in the queue until a descriptor frees up
            self._note_refusal("the process is out of file descriptors")
        # Level-triggered readiness would call straight back: wait a little for descriptors.
        loop = asyncio.get_running_loop()
        loop.remove_reader(sock.fileno())
        self._paused = True
        loop.call_later(ACCEPT_PAUSE_S, self._resume)

    def _resume(self) -> None:
        if self._sock is not None and self._paused:
            self._paused = False
            asyncio.get_running_loop().add_reader(self._sock.fileno(), self._accept_ready)

    # -- serving ----------------------------------------------------------------------------------
    async def _on_client(self, conn: socket.socket, peer: Peer, admission: Admission) -> None:
        token = budgeting.CURRENT.set(admission)
        try:
            await self._serve_one(conn, peer)
        except asyncio.CancelledError:
            pass
        except Exception:  # pragma: no cover - the handler maps its own errors
            log.exception("%s: unexpected error while serving a client", self._name)
        finally:
            admission.release()
            budgeting.CURRENT.reset(token)
            self._ledger.release(peer.pid, self._ledger.connections)
            # What was sent is in the kernel's buffer and reaches the client; a reply that
            # could not be written in time is dropped with the descriptor.
            conn.close()

    async def _serve_one(self, conn: socket.socket, peer: Peer) -> None:
        if peer.uid != self._uid:
            log.warning("%s: refused a peer with uid %d", self._name, peer.uid)
            # Take (and ignore) its request first: answering before it has sent would make
            # its send fail with EPIPE, and the refusal would never reach it.
            try:
                async with asyncio.timeout(REQUEST_READ_TIMEOUT_S):
                    await read_request(conn)
            except (TimeoutError, RequestTooLarge, ConnectionError, OSError):
                pass
            await self._write(conn, self._foreign)
            return
        try:
            body, start = request_now(conn)
            if body is None:
                async with asyncio.timeout(REQUEST_READ_TIMEOUT_S):
                    body = await read_request(conn, start)
        except TimeoutError:
            return  # silent drop: a client that never finishes its request gets nothing
        except RequestTooLarge:
            await self._write(conn, self._too_large)
            return
        except (ConnectionError, OSError):
            return
        reply: bytes | HeldReply | None
        if self._hangups is None:
            reply = await self._handler(body, peer)
        else:
            reply = await self._watched(lambda: self._handler(body, peer), conn.fileno())
        if isinstance(reply, HeldReply):
            await self._write(conn, reply.first)
            if self._hangups is None:  # the first held reply of a server without the watch
                self._hangups = _HangupWatch()
            reply = await self._watched(reply.rest, conn.fileno())
        if isinstance(reply, bytes):
            await self._write(conn, reply)

    async def _watched(
        self, work: Callable[[], Awaitable[bytes | HeldReply | None]], fd: int
    ) -> bytes | HeldReply | None:
        """Run ``work`` while watching for the client's hang-up (None: it hung up)."""
        assert self._hangups is not None
        scope = RequestScope(task=asyncio.current_task())
        token = CURRENT.set(scope)
        self._hangups.watch(fd, scope)
        try:
            return await work()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if scope.gone and task is not None and task.cancelling() <= 1:
                if task.cancelling():
                    task.uncancel()  # our own cancel (the hang-up), not a shutdown's
                return None
            raise
        finally:
            self._hangups.unwatch(fd)
            CURRENT.reset(token)

    async def _write(self, conn: socket.socket, data: bytes) -> None:
        try:
            sent = conn.send(data)  # a reply nearly always fits the socket's buffer at once
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            conn.close()  # the client left: nothing more to say to it
            return
        if sent == len(data):
            return
        try:
            async with asyncio.timeout(RESPONSE_WRITE_TIMEOUT_S):
                await asyncio.get_running_loop().sock_sendall(conn, data[sent:])
        except (TimeoutError, ConnectionError, OSError):
            # A client that does not read its reply (or left) gets no more of it: drop the
            # unsent rest and the descriptor now, not when (if ever) the client reads.
            conn.close()
