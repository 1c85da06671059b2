"""One pane's capability cannot make the controller keep unbounded history (issue 15 #6).

A flood of runs from one pane used to be kept whole: every run in memory and in ``list``'s
pane scan, every failure an attention item, all of it replayed on each restart. Now a pane
keeps at most MAX_RUNS_PER_PANE runs (the oldest finished ones go, with their items; their
events stay stored) and a restart reads the books' snapshot instead of the history.
"""

from __future__ import annotations

import pytest

from mytty.core.runs.retention import MAX_RUNS_PER_PANE
from tests.e2e.events_support import K, control, new_id, open_agent_pane
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

FLOOD = MAX_RUNS_PER_PANE + 150


def test_a_flood_of_runs_from_one_pane_stays_bounded_across_restarts(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    for _ in range(FLOOD):
        run = new_id()
        pane.send(K.STARTED, run_id=run)
        pane.send(K.FAILED, run_id=run, message="boom")
    last = new_id()
    pane.send(K.STARTED, run_id=last)  # the newest run speaks for the pane

    def items() -> list[dict[str, object]]:
        reply = control(mytty, {"type": "attention"})
        assert reply["type"] == "attention", reply
        found: list[dict[str, object]] = reply["items"]
        return found

    assert len(items()) == MAX_RUNS_PER_PANE - 1  # one failure per kept finished run
    assert pane.entry()["agentState"] == "running"
    mytty.stop()
    mytty.start()
    assert "events replayed" in mytty.log()
    after = items()
    assert len(after) <= MAX_RUNS_PER_PANE, len(after)
    assert pane.entry()["agentState"] in {"running", "disconnected"}
    mytty.kill9()
    mytty.start()
    assert len(items()) <= MAX_RUNS_PER_PANE
