"""The local controller follows host b over SSH (real sshd, b's own controller): b's approval
request shows in ``mytty attention --hosts all`` here and notifies here once; b going away
(its controller and the SSH master killed) makes it stale with its last-seen time, and when
it is back its items return without duplicates, and a wait begun before returns its one
result."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hosts.conftest import close_links, local_with_host
from tests.hosts.remote import SecondMachine
from tests.hosts.test_ctl_remote import master_pid
from tests.support.harness import MYTTY, BackgroundCtl, Mytty, wait_until

pytestmark = pytest.mark.tmux


@pytest.fixture
def lead(machine: SecondMachine, tmp_path: Path) -> Iterator[tuple[Mytty, Path]]:
    """Host A with [hosts.b]; its notifications go to a file, one JSON object a line."""
    out = tmp_path / "notified.jsonl"
    notify = (
        "[notify]\n"
        'channels = ["command"]\n'
        "cooldown = 0\n"
        f"command = {json.dumps(f'cat >> {out}; echo >> {out}')}\n\n"
    )
    m = local_with_host(machine, config=notify, env={"MYTTY_TEST_TIMINGS": "host_backoff_max=2"})
    try:
        yield m, out
    finally:
        m.close()
        close_links(m)


def host_b(m: Mytty) -> dict[str, Any]:
    hosts = m.ctl("hosts").json["hosts"]
    assert [h["name"] for h in hosts] == ["b"]
    return dict(hosts[0])


def notified(out: Path) -> list[dict[str, Any]]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def attention_all(m: Mytty) -> dict[str, Any]:
    proc = subprocess.run(
        [MYTTY, "attention", "--hosts", "all", "--json"],
        env=m.env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout))


def b_items(m: Mytty, pane: str | None = None) -> list[dict[str, Any]]:
    """b's items listed here (``pane``: only that pane's; b is shared by the session)."""
    items = [i for i in attention_all(m)["items"] if i["host"] == "b"]
    return [i for i in items if pane is None or i["paneID"] == pane]


def notified_of(out: Path, pane: str) -> list[dict[str, Any]]:
    return [n for n in notified(out) if n["paneID"] == pane]


def test_b_is_followed_and_its_approval_request_shows_here_and_notifies_once(
    lead: tuple[Mytty, Path],
) -> None:
    m, out = lead
    current = wait_until(lambda: (h := host_b(m))["state"] == "current" and h, 30,
                         message="host b current")  # fmt: skip
    assert current["version"] and current["lastSeen"] and current["rttMs"] is not None
    assert current["error"] is None
    job = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude", "--label", "far-away",
                "--task", "needs a yes\n@standin: approve").json["job"]  # fmt: skip
    pane = job["paneID"]["rawValue"]
    items = wait_until(lambda: b_items(m, pane), 30, message="b's approval item here")
    assert len(items) == 1
    item = items[0]
    assert item["kind"] == "approval-request" and item["label"] == "far-away"
    assert item["paneID"] == job["paneID"]["rawValue"] and item["runID"].startswith("b:")
    assert item["stale"] is False
    sent = wait_until(lambda: notified_of(out, pane), 15, message="the notification")
    assert len(sent) == 1
    assert sent[0]["host"] == "b" and sent[0]["kind"] == "approval"
    assert sent[0]["title"] == "mytty: b:far-away" and sent[0]["paneID"] == item["paneID"]
    # More answers from b (two refreshes, a poll) do not notify the same item again.
    m.ctl("hosts", "--refresh").ok()
    m.ctl("hosts", "--refresh").ok()
    assert len(b_items(m, pane)) == 1 and len(notified_of(out, pane)) == 1
    # Answered on b: the item goes here too.
    m.ctl("agent", "send", job["jobID"]["rawValue"], "y", "--enter").ok()
    wait_until(lambda: not b_items(m, pane), 30, message="b's item resolved here")
    assert len(notified_of(out, pane)) == 1


def test_acknowledging_a_b_item_from_here(lead: tuple[Mytty, Path]) -> None:
    m, _ = lead
    wait_until(lambda: host_b(m)["state"] == "current", 30, message="host b current")
    job = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude",
                "--task", "fails\n@standin: fail").json["job"]  # fmt: skip
    item = wait_until(
        lambda: next(iter(b_items(m, job["paneID"]["rawValue"])), None),
        30,
        message="b's failure item here",
    )
    assert item["kind"] == "failure"
    run = str(item["runID"])[: len("b:") + 8]  # the prefix the table shows
    proc = subprocess.run([MYTTY, "attention", "--hosts", "all", "--ack", run],
                          env=m.env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert all(i["runID"] != item["runID"] for i in b_items(m))


def test_b_gone_is_stale_then_back_without_duplicates_and_the_wait_returns_once(
    lead: tuple[Mytty, Path], machine: SecondMachine, background: list[BackgroundCtl]
) -> None:
    m, out = lead
    wait_until(lambda: host_b(m)["state"] == "current", 30, message="host b current")
    job = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude", "--label", "held",
                "--task", "needs a yes\n@standin: approve").json["job"]  # fmt: skip
    jid, pane = job["jobID"]["rawValue"], job["paneID"]["rawValue"]
    before = wait_until(lambda: b_items(m, pane), 30, message="b's approval item here")
    waiting = BackgroundCtl(m, "agent", "wait", jid, "--until", "completed",
                            "--timeout-seconds", "180")  # fmt: skip
    background.append(waiting)
    wait_until(lambda: len(notified_of(out, pane)) == 1, 15, message="one notification")

    pid = wait_until(lambda: master_pid(m, machine), 10, message="the ssh master")
    machine.user.kill_controller()
    subprocess.run(["kill", "-9", str(pid)], check=True)
    stale = wait_until(lambda: (h := host_b(m))["state"] == "stale" and h, 30,
                       message="host b stale")  # fmt: skip
    assert stale["lastSeen"] is not None and stale["lastSeen"] <= stale["since"]
    assert stale["error"]["code"] in ("controller-not-running", "host-unreachable")
    shown = attention_all(m)
    assert [h["state"] for h in shown["hosts"]] == ["stale"]
    kept = [i for i in shown["items"] if i["host"] == "b" and i["paneID"] == pane]
    assert [i["runID"] for i in kept] == [i["runID"] for i in before]
    assert all(i["stale"] for i in kept)  # shown as of then, never as current
    listed = subprocess.run([MYTTY, "hosts", "list", "--json"], env=m.env,
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert entry["name"] == "b" and entry["reachable"] is False and entry["state"] == "stale"
    assert (
        entry["error"]["code"] == "controller-not-running"
        and entry["lastSeen"] == stale["lastSeen"]
    )
    assert waiting.running()

    machine.user.start_controller()
    back = wait_until(lambda: (h := host_b(m))["state"] == "current" and h, 30,
                      message="host b current again")  # fmt: skip
    assert back["lastSeen"] > stale["lastSeen"]
    again = b_items(m, pane)
    assert [i["runID"] for i in again] == [i["runID"] for i in before]  # no duplicate
    assert len(notified_of(out, pane)) == 1  # nor a second notification

    m.ctl("agent", "send", jid, "y", "--enter").ok()
    result = waiting.result(timeout=120)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 1
    assert (
        result.json["job"]["state"] == "succeeded"
        and result.json["job"]["jobID"]["rawValue"] == jid
    )


def test_a_host_reached_through_exec_is_followed_too(machine: SecondMachine) -> None:
    m = local_with_host(machine, transport="exec")
    try:
        current = wait_until(lambda: (h := host_b(m))["state"] == "current" and h, 60,
                             message="host b current over exec")  # fmt: skip
        assert current["error"] is None and isinstance(current["agents"], int)
        assert all(item["paneID"].startswith("b:") for item in current["items"])
    finally:
        m.close()
        close_links(m)
