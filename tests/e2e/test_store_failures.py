"""What the controller does when its store cannot write (issue 15 defect 8).

The store is made to fail for real: another connection holds SQLite's write lock, so the
controller's writer gives up after its busy timeout ("database is locked").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.e2e.events_support import K, control, open_agent_pane, store_path
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


@contextmanager
def store_write_locked(m: Mytty) -> Iterator[None]:
    conn = sqlite3.connect(str(store_path(m)), timeout=5, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")  # holds the one write lock of the WAL database
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def open_items(m: Mytty) -> list[dict[str, object]]:
    items = control(m, {"type": "attention"})["items"]
    return [i for i in items if i["resolvedAt"] is None]


def test_a_failed_acknowledgement_changes_nothing(mytty: Mytty) -> None:
    agent = open_agent_pane(mytty)
    # A failure item: its run is over, so only an acknowledgement closes it (a restart's sweep
    # leaves finished runs alone).
    run = agent.send(K.STARTED).run_id
    agent.send(K.FAILED, run_id=run, message="it broke")
    assert [i["runID"] for i in open_items(mytty)] == [run]

    with store_write_locked(mytty):
        reply = control(mytty, {"type": "attention", "acknowledgeAll": True})
        assert reply["type"] == "failure" and reply["code"] == "internal-error", reply
        # Memory agrees with the store: the item is still open.
        assert [i["runID"] for i in open_items(mytty)] == [run]
        assert "nothing was acknowledged" in reply["message"], reply

    assert control(mytty, {"type": "attention", "acknowledgeAll": True})["type"] == "attention"
    assert open_items(mytty) == []
    mytty.stop()
    mytty.start()
    wait_until(lambda: open_items(mytty) == [], timeout=10, message="the ack to survive")
    assert "Traceback" not in mytty.log()
