"""``mytty hosts add|list|remove`` and the edits of ``config.toml`` behind them; the pure state
of a followed host and the notification of a remote item."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mytty.core.attention.notify_policy import NotifyGate, notification_for_remote
from mytty.core.config import DEFAULT_TEXT, settings_from
from mytty.core.errors import MyttyError
from mytty.core.hosts.config import HostSpec
from mytty.core.hosts.state import CONNECTING, CURRENT, STALE, HostState, lost, seen
from mytty.daemon.config.hosts_edit import add_host, remove_host
from tests.hosts.conftest import close_links
from tests.hosts.remote import SecondMachine
from tests.support.harness import MYTTY, Mytty

ITEM = {
    "paneID": "b:P",
    "runID": "b:R",
    "provider": "claude-code",
    "kind": "approval-request",
    "message": "Bash: rm -rf build",
    "createdAt": "2026-07-16T05:00:05.250Z",
    "resolvedAt": None,
    "location": "mytty:2.1",
    "label": "scan",
}


# -- config.toml edits ---------------------------------------------------------------------------
def test_add_and_remove_keep_the_rest_of_the_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(DEFAULT_TEXT.replace("cooldown = 30", "cooldown = 7  # mine"))
    config.chmod(0o640)
    add_host(tmp_path, HostSpec("build1", "me@build1", ("Port=2222",)))
    add_host(tmp_path, HostSpec("gpu", "gpu", mytty_ctl="/opt/m/bin/mytty-ctl"))
    text = config.read_text()
    assert "cooldown = 7  # mine" in text and "# Which transitions notify" in text
    settings, warnings = settings_from(__import__("tomllib").loads(text))
    assert warnings == []
    assert settings.hosts.get("build1") == HostSpec("build1", "me@build1", ("Port=2222",))
    assert settings.hosts.get("gpu") == HostSpec("gpu", "gpu", mytty_ctl="/opt/m/bin/mytty-ctl")
    assert settings.notify.cooldown == 7
    with pytest.raises(MyttyError) as taken:
        add_host(tmp_path, HostSpec("gpu", "elsewhere"))
    assert "already configured" in taken.value.message
    assert remove_host(tmp_path, "build1") is True
    assert remove_host(tmp_path, "build1") is False
    after = config.read_text()
    assert "build1" not in after and "[hosts.gpu]" in after and "cooldown = 7  # mine" in after
    assert oct(config.stat().st_mode & 0o777) == "0o640"  # its mode is kept


def test_a_broken_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[notify\n")
    with pytest.raises(MyttyError) as refused:
        add_host(tmp_path, HostSpec("b", "x"))
    assert refused.value.code.value == "invalid-configuration"
    assert config.read_text() == "[notify\n"


# -- a followed host -------------------------------------------------------------------------------
def test_seen_and_lost() -> None:
    state = HostState("b", "me@b", since=1.0)
    assert state.state == CONNECTING and state.attention is None
    assert lost(state, 2.0, "host-unreachable", "no").state == CONNECTING  # not seen yet
    jobs = [{"state": "running"}, {"state": "succeeded"}, {"state": "waiting-approval"}]
    state, fresh = seen(state, 3.0, items=[ITEM], jobs=jobs, rtt_ms=0.5, version="0.1.0")
    assert (state.state, state.since, state.last_seen, state.agents) == (CURRENT, 3.0, 3.0, 2)
    assert fresh == [{**ITEM, "host": "b"}] and state.attention == 1
    state, fresh = seen(state, 4.0, items=[ITEM], jobs=[], rtt_ms=0.5, version=None)
    assert fresh == [] and state.since == 3.0 and state.version == "0.1.0"  # nothing new
    gone = lost(state, 5.0, "controller-not-running", "stopped")
    assert (gone.state, gone.since, gone.last_seen) == (STALE, 5.0, 4.0)
    assert gone.items == state.items  # kept, as of when it was last seen
    back, fresh = seen(gone, 6.0, items=[ITEM], jobs=[], rtt_ms=0.5, version=None)
    assert back.state == CURRENT and back.since == 6.0 and fresh == []  # no duplicate
    resolved = {**ITEM, "resolvedAt": "2026-07-16T05:01:00.000Z"}
    done, fresh = seen(back, 7.0, items=[resolved], jobs=[], rtt_ms=0.5, version=None)
    assert done.items == () and fresh == []


def test_a_remote_item_notifies_once_and_not_when_older_than_the_router() -> None:
    n = notification_for_remote("b", ITEM)
    assert n is not None
    assert (n.kind, n.host, n.location, n.label) == ("approval", "b", "b:mytty:2.1", "scan")
    assert n.surface_id == "b:P" and n.run_id == "b:R"
    gate = NotifyGate(started_at=n.occurred_at - 1, kinds=("approval",), cooldown=0)
    assert gate.claim(n).value == "send"
    assert gate.claim(notification_for_remote("b", dict(ITEM))).value == "duplicate"  # type: ignore[arg-type]
    late = NotifyGate(started_at=n.occurred_at + 1, kinds=("approval",), cooldown=0)
    assert late.claim(n).value == "before-start"
    assert notification_for_remote("b", {**ITEM, "kind": "budget"}) is None
    assert notification_for_remote("b", {**ITEM, "createdAt": "yesterday"}) is None


# -- the noun, against the real host ----------------------------------------------------------------
def mytty(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MYTTY, *args], env=m.env, capture_output=True, text=True,
                          timeout=90, check=False)  # fmt: skip


@pytest.mark.tmux
def test_hosts_add_list_remove(machine: SecondMachine) -> None:
    m = Mytty()
    try:
        m.mytty_home.mkdir(parents=True)
        port = f"Port={machine.sshd.port}"
        base = machine.host_table().split("\n\n", 1)[0]  # [hosts] with the test's ssh -F
        (m.mytty_home / "config.toml").write_text(base + "\n")
        added = mytty(m, "hosts", "add", "b", machine.sshd.destination, "--ssh-option", port,
                      "--mytty-ctl", str(machine.user.venv / "bin" / "mytty-ctl"))  # fmt: skip
        assert added.returncode == 0, added.stderr
        assert "added host b" in added.stderr and "mytty 0.1.0 answers" in added.stderr
        text = (m.mytty_home / "config.toml").read_text()
        assert "[hosts.b]" in text and f'ssh_options = ["{port}"]' in text
        again = mytty(m, "hosts", "add", "b", "x@y")
        assert again.returncode == 1 and "already configured" in again.stderr
        bad = mytty(m, "hosts", "add", "b:2", "x@y")
        assert bad.returncode == 1 and bad.stderr.startswith("mytty: usage: a host name")
        listed = mytty(m, "hosts", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        (entry,) = json.loads(listed.stdout)
        assert entry["name"] == "b" and entry["reachable"] is True
        assert entry["version"] == "0.1.0" and entry["rttMs"] > 0
        assert isinstance(entry["agents"], int) and isinstance(entry["attention"], int)
        assert entry["error"] is None and entry["state"] is None  # no controller here
        table = mytty(m, "hosts", "list")
        assert table.returncode == 0 and "b" in table.stdout and "yes" in table.stdout
        removed = mytty(m, "hosts", "remove", "b")
        assert removed.returncode == 0, removed.stderr
        assert "[hosts.b]" not in (m.mytty_home / "config.toml").read_text()
        gone = mytty(m, "hosts", "remove", "b")
        assert gone.returncode == 1 and gone.stderr.startswith("mytty: host-not-found: ")
        assert m.ctl("--host", "b", "list").code == "host-not-found"
    finally:
        m.close()
        close_links(m)
