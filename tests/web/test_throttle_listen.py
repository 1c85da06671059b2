"""The pairing throttle (time as an input) and the listen rules: loopback, TLS, Host."""

from __future__ import annotations

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.web import listen
from mytty.web.throttle import PairingThrottle


def test_failures_per_client_and_overall_hold_attempts_back_for_the_window() -> None:
    t = PairingThrottle(window=60, per_client=2, overall=3)
    t.failed("a", 0)
    assert t.allowed("a", 1) and t.retry_after("a", 1) == 0
    t.failed("a", 10)
    assert not t.allowed("a", 11) and t.allowed("b", 11)
    assert t.retry_after("a", 11) == 49
    t.failed("b", 20)
    assert not t.allowed("c", 21)  # three failures from anyone: everyone waits
    assert t.retry_after("c", 21) == 39
    assert t.allowed("c", 60.5)  # the first failure left the window
    t.failed("a", 61)
    assert not t.allowed("a", 62)  # 10 and 61 are in the window
    assert t.allowed("a", 70.5)


@pytest.mark.parametrize(
    ("text", "host", "port", "loopback"),
    [
        ("127.0.0.1:8765", "127.0.0.1", 8765, True),
        ("127.3.2.1:0", "127.3.2.1", 0, True),
        ("localhost:80", "localhost", 80, True),
        ("[::1]:8765", "::1", 8765, True),
        ("0.0.0.0:8765", "0.0.0.0", 8765, False),
        ("[::]:8765", "::", 8765, False),
        ("192.168.1.20:8765", "192.168.1.20", 8765, False),
        ("100.64.0.7:443", "100.64.0.7", 443, False),
    ],
)
def test_listen_addresses(text: str, host: str, port: int, loopback: bool) -> None:
    assert listen.parse(text) == listen.Listen(host, port, loopback)


@pytest.mark.parametrize("text", ["8765", ":8765", "host:", "host:port", "1.2.3.4:70000", "::1:80"])
def test_malformed_listen_addresses_are_usage_errors(text: str) -> None:
    with pytest.raises(MyttyError) as caught:
        listen.parse(text)
    assert caught.value.code is ErrorCode.USAGE


def test_a_non_loopback_address_needs_tls() -> None:
    lan = listen.parse("0.0.0.0:8765")
    with pytest.raises(MyttyError) as caught:
        listen.require_tls_where_needed(lan, None, None)
    assert caught.value.code is ErrorCode.INSECURE_LISTEN
    assert "ssh -L" in caught.value.message
    assert listen.require_tls_where_needed(lan, "c.pem", "k.pem") is True
    assert listen.require_tls_where_needed(listen.parse("127.0.0.1:1"), None, None) is False
    with pytest.raises(MyttyError) as half:
        listen.require_tls_where_needed(lan, "c.pem", None)
    assert half.value.code is ErrorCode.USAGE


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8765", True),
        ("localhost:9000", True),
        ("LOCALHOST", True),
        ("[::1]:8765", True),
        ("127.0.0.1", True),
        ("evil.example:8765", False),
        ("evil.example", False),
        ("127.0.0.1.evil.example", False),
        ("[::1", False),
        ("", False),
        (None, False),
    ],
)
def test_a_loopback_server_answers_loopback_names_only(host: str | None, allowed: bool) -> None:
    assert listen.host_header_allowed(host, listen.parse("127.0.0.1:8765")) is allowed
    assert listen.host_header_allowed(host, listen.parse("0.0.0.0:8765")) is True  # TLS's job


def test_urls_bracket_ipv6_and_name_the_scheme() -> None:
    assert listen.parse("[::1]:0").url(4321, tls=False) == "http://[::1]:4321"
    assert listen.parse("127.0.0.1:0").url(80, tls=True) == "https://127.0.0.1:80"


def test_every_address_of_a_name_listens_on_one_port_and_a_taken_one_is_refused() -> None:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.web.server import _listening_sockets

    opened = _listening_sockets("localhost", 0)
    try:
        ports = {s.getsockname()[1] for s in opened}
        assert len(ports) == 1 and len(opened) >= 1
        with pytest.raises(MyttyError) as refused:
            _listening_sockets("127.0.0.1", ports.pop())
        assert refused.value.code is ErrorCode.LISTEN_FAILED
        assert "cannot listen on 127.0.0.1:" in refused.value.message
    finally:
        for s in opened:
            s.close()
