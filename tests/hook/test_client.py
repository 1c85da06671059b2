"""The event socket client in-process: absent controllers, bad paths, the deadline."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mytty.hook.client import ControllerNotRunning, DeliveryError, deliver

from .conftest import FakeEventServer

LINE = b'{"schemaVersion":1}\n'


def test_a_plain_file_instead_of_a_socket_means_not_running(sock_dir: Path) -> None:
    path = sock_dir / "not-a-socket"
    path.write_text("")
    with pytest.raises(ControllerNotRunning):
        deliver(str(path), LINE, deadline=time.monotonic() + 2)


def test_a_path_too_long_for_af_unix_is_an_error(sock_dir: Path) -> None:
    with pytest.raises(DeliveryError, match="too long"):
        deliver(str(sock_dir / ("x" * 200)), LINE, deadline=time.monotonic() + 2)


def test_a_passed_deadline_is_a_timeout(event_server: FakeEventServer) -> None:
    with pytest.raises(DeliveryError, match="timed out"):
        deliver(str(event_server.path), LINE, deadline=time.monotonic() - 1)
    assert event_server.lines == []


def test_the_reply_is_decoded_and_the_line_sent_verbatim(event_server: FakeEventServer) -> None:
    reply = deliver(str(event_server.path), LINE, deadline=time.monotonic() + 2)
    assert reply == {"ok": True, "inserted": True}
    assert event_server.lines == [LINE.rstrip(b"\n")]


def test_only_the_first_reply_line_counts(sock_dir: Path) -> None:
    server = FakeEventServer(sock_dir / "e.sock", reply_bytes=b'{"ok":true}\nnoise\n')
    try:
        assert deliver(str(server.path), LINE, deadline=time.monotonic() + 2) == {"ok": True}
    finally:
        server.stop()
