"""The startup sweep after ``kill -9`` of the controller (semantics §1.7, with the issue's rule).

tmux panes outlive the controller, so a run is dead only when its pane is gone or back at its
shell. Sweep events are ``disconnected`` with hookName ``mytty.startupSweep``, stored, and (unlike
the original) visible in the ``events`` ledger as synthesized records.
"""

from __future__ import annotations

import pytest

from mytty.core.ids import stable_uuid
from tests.e2e.events_support import (
    INSERTED,
    K,
    P,
    all_records,
    control,
    events_request,
    kill9_and_settle,
    new_id,
    open_agent_pane,
    run_in_foreground,
    send_event,
    stored_events,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

SWEEP = "mytty.startupSweep"


def _state(m: Mytty, pane_id: str) -> str | None:
    for entry in m.panes():
        if entry["paneID"] == pane_id:
            return entry.get("agentState")
    raise AssertionError(f"pane {pane_id} is not listed")


def test_kill_9_then_restart_sweeps_dead_runs_only(mytty: Mytty) -> None:
    m = mytty
    at_shell = open_agent_pane(m)  # running, agent gone: swept
    asking = open_agent_pane(m)  # waiting-approval, agent gone: swept
    busy = open_agent_pane(m)  # running, "agent" still in the foreground: kept
    finished = open_agent_pane(m)  # succeeded: never swept
    resting = open_agent_pane(m)  # idle: never swept
    vanished = open_agent_pane(m)  # running, pane killed while the controller is down: swept

    names = ("at_shell", "asking", "busy", "finished", "resting", "vanished")
    runs = {name: new_id() for name in names}
    at_shell.send(K.STARTED, run_id=runs["at_shell"], session_id="sess-1")
    asking.send(K.STARTED, run_id=runs["asking"], provider=P.OPENCODE)
    asking.send(K.APPROVAL_REQUESTED, run_id=runs["asking"], provider=P.OPENCODE)
    run_in_foreground(m, busy, "sleep 1000", "sleep")
    busy.send(K.STARTED, run_id=runs["busy"], provider=P.CURSOR)
    finished.send(K.STARTED, run_id=runs["finished"])
    finished.send(K.SUCCEEDED, run_id=runs["finished"])
    resting.send(K.IDLE, run_id=runs["resting"], provider=P.ANTIGRAVITY)
    vanished.send(K.STARTED, run_id=runs["vanished"], provider=P.OPENCODE)
    stored_before = len(stored_events(m))

    kill9_and_settle(m)
    m.tmux("kill-pane", "-t", m.tmux_id(vanished.pane_id))
    m.start()

    assert _state(m, at_shell.pane_id) == "disconnected"
    assert _state(m, asking.pane_id) == "disconnected"
    assert _state(m, busy.pane_id) == "running"
    assert _state(m, finished.pane_id) == "succeeded"
    assert _state(m, resting.pane_id) == "idle"
    swept = {runs[n] for n in ("at_shell", "asking", "vanished")}

    # The sweep is in the ledger of the new instance, as synthesized records.
    replay = m.ctl("events", "--after", "0", "--timeout", "5").json
    records = replay["records"]
    assert replay["latestSequence"] == 3 and [r["sequence"] for r in records] == [1, 2, 3]
    assert {r["runID"] for r in records} == swept
    assert all(r["kind"] == "disconnected" and r["synthesized"] is True for r in records)
    by_run = {r["runID"]: r for r in records}
    assert by_run[runs["at_shell"]]["paneID"] == at_shell.pane_id
    assert by_run[runs["at_shell"]]["provider"] == "claude-code"
    assert by_run[runs["vanished"]]["paneID"] == vanished.pane_id

    # ... and in the store, with the sweep's hookName and deterministic ids.
    stored = stored_events(m)
    assert len(stored) == stored_before + 3
    sweep_rows = stored[stored_before:]
    assert {e["runID"]["rawValue"] for e in sweep_rows} == swept
    for row in sweep_rows:
        run = row["runID"]["rawValue"]
        assert row["kind"] == "disconnected" and row["hookName"] == SWEEP
        assert row["id"]["rawValue"] == stable_uuid("event", "startup-sweep", run)
    [shell_row] = [e for e in sweep_rows if e["runID"]["rawValue"] == runs["at_shell"]]
    assert shell_row["sessionID"] == "sess-1"

    # Runs that were active get a disconnect attention item.
    items = control(m, {"type": "attention"})["items"]
    disconnects = {i["runID"] for i in items if i["kind"] == "disconnect"}
    assert disconnects == swept
    for wait_pane in (at_shell, asking):
        assert m.request(
            {"type": "wait", "paneID": wait_pane.pane_id, "until": "idle", "timeoutSeconds": 0}
        ) == {"type": "waitResult", "state": "disconnected", "timedOut": False}

    # The panes kept their environment, so their capabilities still work after the restart.
    assert (
        send_event(
            m, busy.event(K.RUNNING, run_id=runs["busy"], provider=P.CURSOR), busy.capability
        )
        == INSERTED
    )
    stored_after_first = len(stored_events(m))

    # A second restart finds nothing new to sweep (kill -9 again, the sleep still running).
    kill9_and_settle(m)
    m.start()
    assert len(stored_events(m)) == stored_after_first
    assert events_request(m, 0, 0.3) == {
        "type": "events",
        "records": [],
        "latestSequence": 0,
        "timedOut": True,
    }
    assert _state(m, busy.pane_id) == "running"
    assert _state(m, at_shell.pane_id) == "disconnected"

    # Once the "agent" really ends, the next restart sweeps its run as well.
    m.tmux("send-keys", "-t", m.tmux_id(busy.pane_id), "C-c")
    wait_until(lambda: busy.entry()["command"] != "sleep", timeout=10, message="sleep to end")
    m.stop()
    m.start()
    records = all_records(m)
    assert [(r["runID"], r["kind"], r["synthesized"]) for r in records] == [
        (runs["busy"], "disconnected", True)
    ]
    assert _state(m, busy.pane_id) == "disconnected"


def test_a_graceful_restart_with_no_active_runs_sweeps_nothing(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    pane.send(K.SUCCEEDED, run_id=run)
    pane.send(K.INPUT_REQUESTED)  # a run that never started stays unknown: not active
    mytty.stop()
    mytty.start()
    assert all_records(mytty) == []
    assert _state(mytty, pane.pane_id) == "succeeded"
