"""The notification router end to end: real controller, real tmux, a human's client in a pty.

The human's client shows the ``base`` session; agent panes are new tabs there (not shown), so
they notify. The user command appends each JSON object it reads to a file: one line per
notification, which is what "once per transition" is counted on.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import termios
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.events_support import K, kill9_and_settle, new_id, open_agent_pane
from tests.support.harness import MYTTY, TMUX, Mytty, wait_until

pytestmark = pytest.mark.tmux


class Terminal:
    """A human's terminal: ``tmux attach`` in a pty whose output is kept."""

    def __init__(self, m: Mytty, session: str) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.name = os.ttyname(slave)
        self.proc = subprocess.Popen(
            [TMUX, "-S", m.socket, "attach-session", "-t", f"={session}"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=m.env,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            while chunk := os.read(self.master, 65536):
                with self._lock:
                    self.output.extend(chunk)
        except OSError:
            pass

    def received(self) -> bytes:
        with self._lock:
            return bytes(self.output)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)


def configure(m: Mytty, out: Path, **notify: Any) -> None:
    settings = {
        "channels": ["osc", "message", "command"],
        "cooldown": 0,
        "command": f"cat >> {out}; echo >> {out}",
        **notify,
    }
    lines = ["[notify]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    m.mytty_home.mkdir(parents=True, exist_ok=True)
    (m.mytty_home / "config.toml").write_text("\n".join(lines) + "\n")


def notifications(out: Path) -> list[dict[str, Any]]:
    try:
        text = out.read_text()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture
def human(bare_mytty: Mytty) -> Iterator[tuple[Mytty, Path]]:
    out = bare_mytty.root / "notified.jsonl"
    configure(bare_mytty, out)
    bare_mytty.tmux("set-option", "-g", "allow-passthrough", "on")
    bare_mytty.start()
    yield bare_mytty, out


def test_once_per_transition_with_osc_on_the_humans_terminal(human: tuple[Mytty, Path]) -> None:
    m, out = human
    term = Terminal(m, "base")
    try:
        wait_until(lambda: term.name in m.tmux("list-clients", "-F", "#{client_name}"))
        agent = open_agent_pane(m)
        run = new_id()
        agent.send(K.STARTED, run_id=run)
        approval = agent.send(K.APPROVAL_REQUESTED, run_id=run, message="Bash: make release")
        wait_until(lambda: len(notifications(out)) == 1, timeout=15)
        got = notifications(out)[0]
        assert (got["kind"], got["paneID"], got["runID"]) == ("approval", agent.pane_id, run)
        assert got["message"] == "Bash: make release"
        # The OSC 9 reached the human's terminal through tmux's passthrough, unwrapped.
        wait_until(lambda: b"\x1b]9;mytty" in term.received(), timeout=15)
        assert b"Bash: make release" in term.received()
        # A redelivery of the same event is no new transition.
        assert agent.resend(approval) == {"ok": True, "inserted": False}
        agent.send(K.RUNNING, run_id=run)
        agent.send(K.FAILED, run_id=run, message="exit 2")
        wait_until(lambda: len(notifications(out)) == 2, timeout=15)
        assert [n["kind"] for n in notifications(out)] == ["approval", "failure"]
    finally:
        term.close()


def test_nothing_for_the_focused_pane(human: tuple[Mytty, Path]) -> None:
    m, out = human
    term = Terminal(m, "base")
    try:
        looked_at, other = open_agent_pane(m), open_agent_pane(m)
        wait_until(lambda: term.name in m.tmux("list-clients", "-F", "#{client_name}"))
        target = m.tmux_id(looked_at.pane_id)
        m.tmux("select-pane", "-t", target)
        m.tmux("switch-client", "-c", term.name, "-t", target)
        shown = f"{term.name} {target}"
        wait_until(lambda: shown in m.tmux("list-clients", "-F", "#{client_name} #{pane_id}"))
        run = new_id()
        looked_at.send(K.STARTED, run_id=run)
        looked_at.send(K.APPROVAL_REQUESTED, run_id=run)
        marker = new_id()  # then one that must notify: once it has, the first one never will
        other.send(K.STARTED, run_id=marker)
        other.send(K.INPUT_REQUESTED, run_id=marker)
        wait_until(lambda: len(notifications(out)) >= 1, timeout=15)
        assert [n["runID"] for n in notifications(out)] == [marker]
    finally:
        term.close()


def test_no_storm_after_a_restart(human: tuple[Mytty, Path]) -> None:
    m, out = human
    asking, vanished, marker_pane = open_agent_pane(m), open_agent_pane(m), open_agent_pane(m)
    run = new_id()
    asking.send(K.STARTED, run_id=run)
    asking.send(K.APPROVAL_REQUESTED, run_id=run)
    vanished.send(K.STARTED, run_id=new_id())
    wait_until(lambda: len(notifications(out)) == 1, timeout=15)

    kill9_and_settle(m)
    m.tmux("kill-pane", "-t", m.tmux_id(vanished.pane_id))
    m.start()  # the sweep disconnects both runs (their agents are gone): items, no news
    items = m.request({"type": "attention"})["items"]
    assert {i["kind"] for i in items} >= {"disconnect"}

    marker = new_id()
    marker_pane.send(K.STARTED, run_id=marker)
    marker_pane.send(K.FAILED, run_id=marker)
    wait_until(lambda: len(notifications(out)) == 2, timeout=15)
    assert [n["runID"] for n in notifications(out)] == [run, marker]


def test_a_hanging_command_is_killed_and_the_controller_keeps_serving(bare_mytty: Mytty) -> None:
    m = bare_mytty
    pid_file = m.root / "command.pid"
    configure(
        m,
        m.root / "unused",
        channels=["command"],
        timeout=2,
        command=f"echo $$ > {pid_file}; exec sleep 600",
    )
    m.start()
    agent = open_agent_pane(m)
    run = new_id()
    agent.send(K.STARTED, run_id=run)
    agent.send(K.FAILED, run_id=run)
    pid = int(wait_until(lambda: (pid_file.exists() and pid_file.read_text().strip()) or None))
    # While it hangs, the controller answers both sockets.
    assert m.ctl("list").json["type"] == "list"
    agent.send(K.STARTED, run_id=new_id())
    wait_until(lambda: "killed after 2 s" in m.log(), timeout=20)
    wait_until(lambda: not os.path.exists(f"/proc/{pid}") or _zombie(pid), timeout=10)
    assert m.ctl("list").json["type"] == "list"


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_notify_test_reports_each_channel(bare_mytty: Mytty) -> None:
    m = bare_mytty
    out = m.root / "notified.jsonl"
    configure(m, out, channels=["bell", "osc", "message", "notify-send", "command"])
    m.start()
    done = subprocess.run(
        [MYTTY, "notify", "test", "--json"], env=m.env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    results = {c["channel"]: c for c in reply["channels"]}
    assert list(results) == ["bell", "osc", "notify-send", "command", "message"]
    assert results["command"]["status"] == "sent"
    assert results["bell"] == {
        "channel": "bell",
        "status": "skipped",
        "detail": "not run in a mytty pane",
    }
    assert results["osc"]["status"] == "skipped"  # no client is attached
    [got] = notifications(out)
    assert got["test"] is True and got["kind"] == "approval"

    # A failing command fails the test run, with its reason on the table.
    configure(m, out, channels=["command"], command="echo ntfy is down >&2; exit 7")
    m.stop()
    m.start()
    done = subprocess.run(
        [MYTTY, "notify", "test"], env=m.env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "exited 7: ntfy is down" in done.stdout
