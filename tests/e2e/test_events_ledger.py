"""``events`` long-poll through a real controller: cursors, bursts, timeouts, the 1000 window.

Seed: mytty-ctl reference (events); semantics §6, with the issue's two fixes (a page cut short
reports its last record as ``latestSequence``; ``truncated`` when the cursor fell out of the
window).
"""

from __future__ import annotations

import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mytty.core.events import AgentEvent
from tests.e2e.events_support import (
    INSERTED,
    AgentPane,
    K,
    P,
    all_records,
    drain_ledger,
    events_request,
    new_id,
    open_agent_pane,
    send_event,
)
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

PAGE = 200
WINDOW = 1000


def _ctl_events(m: Mytty, *args: str, timeout: float = 30) -> dict[str, Any]:
    return m.ctl("events", *args, timeout=timeout).json


def _flood(pane: AgentPane, count: int, *, workers: int = 8) -> list[AgentEvent]:
    """Send ``count`` distinct events (many runs, one pane) concurrently; all must be inserted."""
    events = [pane.event(K.STARTED, provider=P.OPENCODE) for _ in range(count)]
    with ThreadPoolExecutor(workers) as pool:
        replies = list(pool.map(lambda e: send_event(pane.m, e, pane.capability), events))
    assert replies == [INSERTED] * count
    return events


def test_omitted_after_establishes_the_cursor_without_records(mytty: Mytty) -> None:
    assert _ctl_events(mytty) == {
        "type": "events",
        "records": [],
        "latestSequence": 0,
        "timedOut": False,
    }
    pane = open_agent_pane(mytty)
    pane.send(K.STARTED)
    pane.send(K.SUCCEEDED)
    # Never blocks, even with a long timeout and nothing new after the tip.
    reply = _ctl_events(mytty, "--timeout", "600", timeout=20)
    assert reply == {"type": "events", "records": [], "latestSequence": 2, "timedOut": False}


def test_after_zero_replays_what_is_retained_with_every_field(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    run = new_id()
    t = 1_784_185_200.0  # 2026-07-16T07:00:00Z
    started = pane.send(K.STARTED, run_id=run, occurred_at=t, session_id="s", message="hi")
    pane.send(K.APPROVAL_REQUESTED, run_id=run, occurred_at=t + 1.5, tool_name="Bash")
    pane.send(K.RUNNING, run_id=run, occurred_at=t + 2, hook_name="mytty.cursorApprovalPending")
    assert pane.resend(started)["inserted"] is False  # duplicates never reach the ledger
    reply = _ctl_events(mytty, "--after", "0", "--timeout", "5")
    assert reply == {
        "type": "events",
        "records": [
            {
                "sequence": 1,
                "paneID": pane.pane_id,
                "provider": "claude-code",
                "runID": run,
                "kind": "started",
                "occurredAt": "2026-07-16T07:00:00.000Z",
                "synthesized": False,
            },
            {
                "sequence": 2,
                "paneID": pane.pane_id,
                "provider": "claude-code",
                "runID": run,
                "kind": "approval-requested",
                "occurredAt": "2026-07-16T07:00:01.500Z",
                "toolName": "Bash",
                "synthesized": False,
            },
            {
                "sequence": 3,
                "paneID": pane.pane_id,
                "provider": "claude-code",
                "runID": run,
                "kind": "running",
                "occurredAt": "2026-07-16T07:00:02.000Z",
                "synthesized": True,
            },
        ],
        "latestSequence": 3,
        "timedOut": False,
    }


def test_after_zero_on_an_empty_ledger_blocks_then_times_out(mytty: Mytty) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as pending:
        pending.settimeout(30)
        pending.connect(mytty.control_socket)
        request = {"type": "events", "afterSequence": 0, "timeoutSeconds": 3}
        pending.sendall(json.dumps(request).encode() + b"\n")
        # A request sent later is answered while this one still waits: it blocks (an answer at
        # once would have been written long before a whole mytty-ctl run).
        mytty.ctl("list").ok()
        pending.settimeout(None)  # a timeout would make the peek below wait for data
        with pytest.raises(BlockingIOError):
            pending.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        pending.settimeout(30)
        reply = json.loads(pending.makefile("rb").readline())
    assert reply == {"type": "events", "records": [], "latestSequence": 0, "timedOut": True}


def test_a_timeout_leaves_latest_sequence_unchanged(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    for kind in (K.STARTED, K.INPUT_REQUESTED, K.RUNNING):
        pane.send(kind, run_id=new_id())
    cursor = _ctl_events(mytty)["latestSequence"]
    assert cursor == 3
    reply = _ctl_events(mytty, "--after", str(cursor), "--timeout", "0.3")
    assert reply == {"type": "events", "records": [], "latestSequence": cursor, "timedOut": True}
    # A cursor from the future (e.g. an earlier controller instance) also just times out.
    reply = _ctl_events(mytty, "--after", "50", "--timeout", "0.2")
    assert reply == {"type": "events", "records": [], "latestSequence": cursor, "timedOut": True}


def test_a_blocked_poll_returns_the_next_event(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    pane.send(K.STARTED)
    cursor = _ctl_events(mytty)["latestSequence"]
    result: dict[str, Any] = {}

    def poll() -> None:
        result["reply"] = events_request(mytty, cursor, 60)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    poller.join(0.5)
    assert poller.is_alive(), f"the poll did not block: {result}"
    event = pane.send(K.APPROVAL_REQUESTED, run_id=new_id(), tool_name="Edit")
    poller.join(15)
    assert not poller.is_alive()
    reply = result["reply"]
    assert reply["timedOut"] is False and reply["latestSequence"] == cursor + 1
    got = [(r["sequence"], r["runID"], r["kind"], r.get("toolName")) for r in reply["records"]]
    assert got == [(cursor + 1, event.run_id, "approval-requested", "Edit")]


@pytest.mark.parametrize("burst", [PAGE + 1, 2 * PAGE + 57])
def test_the_documented_loop_sees_a_burst_exactly_once(mytty: Mytty, burst: int) -> None:
    pane = open_agent_pane(mytty)
    pane.send(K.STARTED, provider=P.OPENCODE)
    cursor = _ctl_events(mytty)["latestSequence"]
    events = _flood(pane, burst)
    # The shell loop from the reference, through mytty-ctl itself.
    seen: list[dict[str, Any]] = []
    pages = 0
    while True:
        reply = _ctl_events(mytty, "--after", str(cursor), "--timeout", "0")
        if reply["timedOut"]:
            assert reply["records"] == [] and reply["latestSequence"] == cursor
            break
        pages += 1
        assert 0 < len(reply["records"]) <= PAGE
        seen.extend(reply["records"])
        cursor = reply["latestSequence"]
        assert cursor == reply["records"][-1]["sequence"]
    assert pages == -(-burst // PAGE)
    sequences = [r["sequence"] for r in seen]
    assert sequences == list(range(sequences[0], sequences[0] + burst))
    assert sorted(r["runID"] for r in seen) == sorted(e.run_id for e in events)


def test_a_cursor_that_fell_out_of_the_window_is_truncated(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    events = _flood(pane, WINDOW + 150)
    latest = WINDOW + 150
    first_retained = latest - WINDOW + 1
    page = events_request(mytty, 0)
    assert page["truncated"] is True
    assert [r["sequence"] for r in page["records"]] == list(
        range(first_retained, first_retained + PAGE)
    )
    page = events_request(mytty, 10)
    assert page["truncated"] is True and page["records"][0]["sequence"] == first_retained
    # Exactly at the edge of the window nothing was lost.
    page = events_request(mytty, first_retained - 1)
    assert "truncated" not in page
    assert page["records"][0]["sequence"] == first_retained
    page = events_request(mytty, latest - 5)
    assert "truncated" not in page and len(page["records"]) == 5
    assert page["latestSequence"] == latest
    # The loop from a lost cursor delivers the whole retained window, once.
    records = list(drain_ledger(mytty, 0))
    assert [r["sequence"] for r in records] == list(range(first_retained, latest + 1))
    # (Which 150 were evicted depends on the concurrent arrival order.)
    assert len({r["runID"] for r in records}) == WINDOW
    assert {r["runID"] for r in records} <= {e.run_id for e in events}
    # latestSequence never goes down on eviction.
    assert events_request(mytty, None)["latestSequence"] == latest


def test_pending_records_are_answered_at_once_whatever_the_timeout(mytty: Mytty) -> None:
    # With records pending the poll never waits for its timeout, not even the longest one.
    pane = open_agent_pane(mytty)
    pane.send(K.STARTED)
    reply = _ctl_events(mytty, "--after", "0", "--timeout", "600", timeout=20)
    assert [r["kind"] for r in reply["records"]] == ["started"]
    assert reply["timedOut"] is False
    assert all_records(mytty) == reply["records"]
