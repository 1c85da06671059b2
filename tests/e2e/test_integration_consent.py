"""``mytty-ctl integration …``: installs over the control socket need the human's yes.

A real tmux client is attached to the test's private server through a pty, so the controller's
``display-popup`` question really appears on a terminal; the test reads that terminal and types
the answer into it, as the human would.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import termios
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import MYTTY, BackgroundCtl, Mytty, wait_until

pytestmark = pytest.mark.tmux

PROVIDERS = ["codex", "claude-code", "opencode", "antigravity", "cursor"]
POPUP_TITLE = "allow hook install?"
# CSI sequences, OSC strings, charset selection and the single-character escapes tmux emits.
_ESCAPES = re.compile(
    rb"\x1b(\[[0-9;?>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78M])"
)


class AttachedClient:
    """``tmux attach`` running on a pty of 200×50, with everything it draws kept as text."""

    def __init__(self, m: Mytty, session: str) -> None:
        self._m = m
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the client (nothing but exec here)
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
                os.execvpe("tmux", ["tmux", "-S", m.socket, "attach-session", "-t", session], m.env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self._raw = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self._raw += chunk

    def text(self) -> str:
        """Everything drawn so far, without terminal escape sequences."""
        with self._lock:
            raw = bytes(self._raw)
        return _ESCAPES.sub(b"", raw).decode("utf-8", "replace")

    def mark(self) -> int:
        with self._lock:
            return len(self._raw)

    def text_since(self, mark: int) -> str:
        with self._lock:
            raw = bytes(self._raw[mark:])
        return _ESCAPES.sub(b"", raw).decode("utf-8", "replace")

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        try:
            os.close(self.fd)
        except OSError:
            pass


def human_clients(m: Mytty) -> list[str]:
    out = m.tmux("list-clients", "-F", "#{client_name} #{client_control_mode}", check=False)
    return [line.split()[0] for line in out.splitlines() if line.endswith(" 0")]


@pytest.fixture
def client(mytty: Mytty) -> Iterator[AttachedClient]:
    # The session of the first pane mytty lists: a session a human could be looking at.
    tmux_pane = mytty.tmux_id(mytty.first_pane())
    session = mytty.tmux("display-message", "-p", "-t", tmux_pane, "#{session_name}").strip()
    attached = AttachedClient(mytty, session)
    try:
        wait_until(lambda: human_clients(mytty), 15, message="the tmux client to attach")
        yield attached
    finally:
        attached.close()


def settings_path(m: Mytty) -> Path:
    return m.home / ".claude" / "settings.json"


def helper_launcher(m: Mytty) -> Path:
    return m.home / ".local" / "share" / "mytty" / "bin" / "mytty-agent-hook"


def statuses(reply: dict[str, Any]) -> dict[str, str]:
    assert reply["type"] == "integrationStatuses", reply
    assert [i["provider"] for i in reply["integrations"]] == PROVIDERS
    return {i["provider"]: i["status"] for i in reply["integrations"]}


def cli_enable(m: Mytty, provider: str) -> None:
    out = subprocess.run(
        [MYTTY, "integrations", "enable", provider],
        env=m.env,
        cwd=str(m.home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr


def wait_for_popup(client: AttachedClient, m: Mytty, job: BackgroundCtl, *needles: str) -> str:
    def probe() -> str | None:
        assert job.running(), f"the request ended before the question: {job.result().stderr}"
        text = client.text()
        return text if all(n in text for n in (POPUP_TITLE, "[y] yes", *needles)) else None

    return wait_until(probe, 20, message=f"the consent popup showing {needles}")


# ------------------------------------------------------------------------------------------------


def test_integration_list_shape(mytty: Mytty) -> None:
    m = mytty
    reply = m.ctl("integration", "list").json
    assert set(reply) == {"type", "integrations"}
    assert statuses(reply) == dict.fromkeys(PROVIDERS, "not-installed")
    for item in reply["integrations"]:
        # leadNotices (an addition: how agent spawn --notify-lead reaches a lead of this provider)
        assert set(item) == {"provider", "status", "leadNotices"}, item

    cli_enable(m, "claude-code")
    reply = m.ctl("integration", "list").json
    assert statuses(reply)["claude-code"] == "installed"
    # The control socket and the human CLI report the same thing.
    cli = subprocess.run(
        [MYTTY, "integrations", "list", "--json"],
        env=m.env,
        cwd=str(m.home),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(cli.stdout) == reply


def test_enable_approved_with_y(
    mytty: Mytty, client: AttachedClient, background: list[BackgroundCtl]
) -> None:
    m = mytty
    assert not settings_path(m).exists()
    job = BackgroundCtl(m, "integration", "enable", "claude-code")
    background.append(job)
    wait_for_popup(client, m, job, "claude-code", str(settings_path(m)))
    assert job.running(), "the install must wait for the human"
    assert not settings_path(m).exists(), "nothing is written before the human answers"

    client.type(b"y")
    reply = job.result().json
    assert statuses(reply)["claude-code"] == "installed"
    settings = json.loads(settings_path(m).read_text())
    assert {"UserPromptSubmit", "PermissionRequest", "Stop"} <= set(settings["hooks"])
    assert helper_launcher(m).exists()
    assert statuses(m.ctl("integration", "list").json)["claude-code"] == "installed"


@pytest.mark.parametrize("answer", [b"n", b"\x1b"], ids=["n", "escape"])
def test_enable_declined(
    mytty: Mytty, client: AttachedClient, background: list[BackgroundCtl], answer: bytes
) -> None:
    m = mytty
    settings_path(m).parent.mkdir(parents=True)
    original = b'{\n  "model": "opus",\n  "permissions": {"allow": []}\n}\n'
    settings_path(m).write_bytes(original)

    job = BackgroundCtl(m, "integration", "enable", "claude-code")
    background.append(job)
    wait_for_popup(client, m, job, "claude-code", str(settings_path(m)))
    client.type(answer)
    assert job.result().code == "integration-declined"
    assert settings_path(m).read_bytes() == original
    assert not helper_launcher(m).exists()
    assert statuses(m.ctl("integration", "list").json)["claude-code"] == "not-installed"


def test_enable_without_attached_client_is_declined_at_once(mytty: Mytty) -> None:
    m = mytty
    assert human_clients(m) == []
    # Waiting for an answer would take the consent timeout (180 s); the call's own 30 s
    # deadline fails the test first: the controller must not wait when no client can answer.
    result = m.ctl("integration", "enable", "claude-code", timeout=30)
    assert result.code == "integration-declined"
    assert "mytty integrations enable claude-code" in result.stderr
    assert not settings_path(m).exists()
    assert not helper_launcher(m).exists()


def test_enable_of_installed_provider_answers_without_popup(
    mytty: Mytty, client: AttachedClient
) -> None:
    m = mytty
    cli_enable(m, "claude-code")
    before = settings_path(m).read_bytes()
    mark = client.mark()
    reply = m.ctl("integration", "enable", "claude-code", timeout=30).json
    assert statuses(reply)["claude-code"] == "installed"
    assert settings_path(m).read_bytes() == before
    # Had a question been shown, the request would still be waiting for its answer.
    assert POPUP_TITLE not in client.text_since(mark)


def test_repair_asks_and_reinstalls(
    mytty: Mytty, client: AttachedClient, background: list[BackgroundCtl]
) -> None:
    m = mytty
    cli_enable(m, "claude-code")
    settings = json.loads(settings_path(m).read_text())
    del settings["hooks"]["Stop"]
    settings_path(m).write_text(json.dumps(settings, indent=2) + "\n")
    assert statuses(m.ctl("integration", "list").json)["claude-code"] == "needs-repair"

    job = BackgroundCtl(m, "integration", "repair")
    background.append(job)
    wait_for_popup(client, m, job, "repair", "claude-code", str(settings_path(m)))
    client.type(b"y")
    assert statuses(job.result().json)["claude-code"] == "installed"
    assert "Stop" in json.loads(settings_path(m).read_text())["hooks"]
