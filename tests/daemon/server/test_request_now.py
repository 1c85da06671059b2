"""request_now: a request already in the socket is taken without waiting; a partial one is
handed to read_request, which goes on from what was read."""

from __future__ import annotations

import asyncio
import socket

import pytest

from mytty.daemon.server.sockets import RequestTooLarge, read_request, request_now
from mytty.protocol.limits import MAX_REQUEST_BYTES


def pair() -> tuple[socket.socket, socket.socket]:
    server, client = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    server.setblocking(False)
    return server, client


def test_a_complete_line_is_the_body_and_nothing_is_left() -> None:
    server, client = pair()
    with server, client:
        client.sendall(b'{"a":1}\nignored')
        assert request_now(server) == (b'{"a":1}', b"")


def test_nothing_arrived_yet_is_none_with_nothing_read() -> None:
    server, client = pair()
    with server, client:
        assert request_now(server) == (None, b"")


def test_a_half_close_without_a_line_is_an_empty_body() -> None:
    server, client = pair()
    with server, client:
        client.shutdown(socket.SHUT_WR)
        assert request_now(server) == (b"", b"")


def test_a_partial_line_goes_on_in_read_request() -> None:
    server, client = pair()
    with server, client:
        client.sendall(b'{"a":')
        body, start = request_now(server)
        assert (body, start) == (None, b'{"a":')
        client.sendall(b"2}\n")
        assert asyncio.run(read_request(server, start)) == b'{"a":2}'


def test_a_line_past_the_limit_is_too_large_in_the_first_read() -> None:
    server, client = pair()
    with server, client:
        client.sendall(b"x" * 100 + b"\n")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("mytty.daemon.server.sockets.MAX_REQUEST_BYTES", 99)
            with pytest.raises(RequestTooLarge):
                request_now(server)


def test_a_line_past_the_limit_is_too_large_when_read_on() -> None:
    server, client = pair()
    with server, client:
        client.setblocking(False)
        client.send(b"x" * (MAX_REQUEST_BYTES + 2))
        body, start = request_now(server)
        assert body is None and start
        client.send(b"\n")
        with pytest.raises(RequestTooLarge):
            asyncio.run(read_request(server, start))
