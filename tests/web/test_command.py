"""``mytty web`` as a command: what it refuses before listening, its pairing link, TLS,
``--pair`` and ``--revoke-all`` (a real process each; no controller needed)."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.harness import MYTTY, wait_until
from tests.web.support import Served, env_for


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, "web", *args], env=env_for(home), capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(env_for(tmp_path / "m"))
    try:
        yield server
    finally:
        server.stop()


def test_a_non_loopback_address_without_tls_is_refused_before_listening(tmp_path: Path) -> None:
    done = run(tmp_path / "m", "--listen", "0.0.0.0:0")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("mytty: insecure-listen: 0.0.0.0 is reachable")
    assert not (tmp_path / "m" / "web").exists()  # nothing was set up


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--listen", "nowhere"), "usage"),
        (("--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent"), "usage"),
        (
            ("--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent", "--tls-key", "/x"),
            "invalid-tls",
        ),
        (("--pair", "--revoke-all"), "usage"),
    ],
)
def test_refusals_are_one_line_with_a_code(
    tmp_path: Path, args: tuple[str, ...], code: str
) -> None:
    done = run(tmp_path / "m", *args)
    assert done.returncode == 1
    assert done.stderr.startswith(f"mytty: {code}: ") and done.stderr.count("\n") == 1


def test_a_taken_port_is_listen_failed(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = run(tmp_path / "m", "--listen", f"127.0.0.1:{taken.getsockname()[1]}")
    assert done.returncode == 1 and done.stderr.startswith("mytty: listen-failed: ")


def test_it_prints_a_pairing_link_that_works_once(served: Served) -> None:
    assert served.lines[0].startswith(f"mytty web: serving {served.base} (loopback only")
    assert served.link.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(served.link, timeout=10) as page:
        assert page.status == 200
        assert "mytty_session=" in page.headers["Set-Cookie"]
    with pytest.raises(urllib.error.HTTPError) as again:
        urllib.request.urlopen(served.link, timeout=10)
    assert again.value.code == 401
    again.value.close()
    with pytest.raises(urllib.error.HTTPError) as bare:
        urllib.request.urlopen(served.base + "/", timeout=10)
    assert bare.value.code == 401
    bare.value.close()
    err = served.stop()
    code = served.link.rsplit("/", 1)[1]
    assert "paired session web-" in err and code not in err


def test_pair_prints_a_new_link_for_the_running_server_and_revoke_all_ends_sessions(
    tmp_path: Path, served: Served
) -> None:
    home = tmp_path / "m"
    again = run(home, "--pair")
    assert again.returncode == 0, again.stderr
    link = again.stdout.strip().splitlines()[-1]
    assert link.startswith(served.base + "/pair/") and link != served.link
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    assert opener.open(link, timeout=10).status == 200
    assert opener.open(served.base + "/", timeout=10).status == 200
    revoked = run(home, "--revoke-all")
    assert revoked.returncode == 0 and "ended 1 session;" in revoked.stdout
    with pytest.raises(urllib.error.HTTPError) as gone:
        opener.open(served.base + "/", timeout=10)
    assert gone.value.code == 401
    gone.value.close()
    with pytest.raises(urllib.error.HTTPError) as used:
        urllib.request.urlopen(served.link, timeout=10)  # waiting codes went too
    used.value.close()
    state = json.loads((home / "web" / "state.json").read_text())
    assert state["sessions"] == [] and state["codes"] == []


def test_pair_without_a_running_server(tmp_path: Path) -> None:
    done = run(tmp_path / "m", "--pair")
    assert done.returncode == 1 and done.stderr.startswith("mytty: not-running: ")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls_serves_https_with_a_secure_host_cookie(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    server = Served(env_for(tmp_path / "m"), "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert server.link.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(cert))
        with urllib.request.urlopen(server.link, timeout=10, context=context) as page:
            cookie = page.headers["Set-Cookie"]
        assert cookie.startswith("__Host-mytty_session=") and "Secure" in cookie
        plain = server.base.replace("https://", "http://")
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(plain + "/", timeout=10)  # no plain HTTP on a TLS port
    finally:
        server.stop()


def test_sigterm_stops_it_with_open_streams(tmp_path: Path, served: Served) -> None:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(served.link, timeout=10)
    stream = opener.open(served.base + "/events", timeout=10)
    assert stream.readline() == b"retry: 1000\n"
    served.proc.terminate()  # the open stream must not hold it up
    wait_until(lambda: served.proc.poll() is not None, 10, message="mytty web to stop")
    assert served.proc.returncode == 0
    state = json.loads((tmp_path / "m" / "web" / "state.json").read_text())
    assert state["url"] is None  # --pair no longer finds it


def test_open_starts_the_browser_without_a_panes_capability(tmp_path: Path) -> None:
    """Started from an agent's pane by mistake, the server drops the pane's event capability:
    the browser ``--open`` starts (``$BROWSER``, here a script) has none of it."""
    seen = tmp_path / "browser-env"
    browser = tmp_path / "browser"
    browser.write_text(
        f'#!/bin/sh\nenv > {seen}.tmp\necho "$1" >> {seen}.tmp\nmv {seen}.tmp {seen}\n'
    )
    browser.chmod(0o755)
    env = env_for(tmp_path / "m")
    env.update(
        BROWSER=str(browser),
        MYTTY_EVENT_CAPABILITY="c0ffee" * 10,
        MYTTY_SURFACE_ID="11111111-1111-4111-8111-111111111111",
        MYTTY_EVENT_SOCKET=str(tmp_path / "events.sock"),
    )
    server = Served(env, "--open")
    try:
        wait_until(seen.exists, 20, message="the browser to be started")
        lines = seen.read_text().splitlines()
        assert lines[-1] == server.link  # it was handed the pairing link
        names = {line.split("=", 1)[0] for line in lines[:-1]}
        assert not names & {"MYTTY_EVENT_CAPABILITY", "MYTTY_SURFACE_ID", "MYTTY_EVENT_SOCKET"}
        assert "MYTTY_HOME" in names
    finally:
        server.stop()
