"""Attention items do not outlive their panes (issue 26, item 11).

Before: a job removed with ``agent close`` kept its item open (``(closed) … not started``) and
in the status line's count; after the tmux server was replaced the count still held panes that
no longer existed; ``--ack-all`` did not say how many items it acknowledged.
"""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from mytty.daemon.clock import TIMINGS_ENV
from tests.e2e.events_support import K, new_id, open_agent_pane
from tests.e2e.jobs_support import completed, configure_shell, new_anchor, spawn, team
from tests.e2e.test_lifecycle import kill_tmux_server
from tests.support.harness import MYTTY, Mytty, wait_until

pytestmark = pytest.mark.tmux


def open_items(m: Mytty) -> list[dict[str, Any]]:
    reply = m.request({"type": "attention"})
    return [i for i in reply["items"] if i["resolvedAt"] is None]


def total(m: Mytty) -> str:
    return m.tmux("show-options", "-gqv", "@mytty_attention_total").strip()


def mytty_cli(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args], env=m.env, capture_output=True, text=True, timeout=30, check=False
    )


def test_a_closed_pane_takes_its_items_and_ack_all_counts(mytty: Mytty) -> None:
    m = mytty
    a, b, c = (open_agent_pane(m) for _ in range(3))
    for pane in (a, b, c):
        run = new_id()
        pane.send(K.STARTED, run_id=run)
        pane.send(K.FAILED, run_id=run, message="boom")
    wait_until(lambda: len(open_items(m)) == 3 and total(m) == "3", message="three open items")

    m.ctl("close-pane", a.pane_id).ok()
    wait_until(
        lambda: {i["paneID"] for i in open_items(m)} == {b.pane_id, c.pane_id},
        message="the closed pane's item to leave the open list",
    )
    wait_until(lambda: total(m) == "2", message="the status count to drop to 2")
    shown = mytty_cli(m, "attention", "--all")
    assert "(closed)" in shown.stdout  # still listed under --all, as resolved

    acked = mytty_cli(m, "attention", "--ack-all")
    assert acked.returncode == 0, acked.stderr
    assert "mytty: acknowledged 2 items" in acked.stderr
    assert open_items(m) == []
    again = mytty_cli(m, "attention", "--ack-all")
    assert "mytty: acknowledged 0 items" in again.stderr


def test_a_replaced_server_takes_every_item_with_it(mytty: Mytty) -> None:
    m = mytty
    pane = open_agent_pane(m)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    pane.send(K.APPROVAL_REQUESTED, run_id=run, message="Bash: ls")
    wait_until(lambda: total(m) == "1", message="one open item")

    kill_tmux_server(m)
    m.tmux("-f", "/dev/null", "new-session", "-d", "-s", "again")
    wait_until(lambda: open_items(m) == [], 20, message="no open item of the gone server")
    wait_until(lambda: total(m) in ("", "0"), 20, message="the new server's count")
    m.stop()
    m.start()  # and a restart does not bring them back
    assert open_items(m) == []


@pytest.fixture
def silent_mytty() -> Any:
    m = Mytty(extra_env={TIMINGS_ENV: "launch_window=3"})
    try:
        configure_shell(m, "unset MYTTY_EVENT_SOCKET\n")  # no hook ever reports
        m.start()
        team(m, providers=("claude",))
        yield m
    finally:
        m.close()


def test_agent_close_retires_a_launch_failure(silent_mytty: Mytty) -> None:
    m = silent_mytty
    job = spawn(
        m, "--provider", "claude", "--task", "x\n@standin: sleep 60", "--anchor", new_anchor(m)
    )
    assert completed(m, job, timeout=60)["state"] == "launch-failed"
    wait_until(lambda: len(open_items(m)) == 1, message="the launch-failure item")
    m.ctl("agent", "close", job["jobID"]["rawValue"]).ok()
    wait_until(lambda: open_items(m) == [], message="the closed job's item to leave")
    wait_until(lambda: total(m) in ("", "0"), message="the status count to drop")
