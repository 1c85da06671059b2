"""What the controller does when its store cannot write (issue 15 defect 8).

The store is made to fail for real: another connection holds SQLite's write lock, so the
controller's writer gives up after its busy timeout ("database is locked").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.e2e.events_support import INSERTED, K, control, open_agent_pane, send_event, store_path
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


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_deleted_under_the_controller_acknowledges_nothing(mytty: Mytty, how: str) -> None:
    # Issue 15 defect 9: SQLite keeps writing into the unlinked file, so every event was
    # answered `inserted: true` and lost at the next restart.
    agent = open_agent_pane(mytty)
    assert send_event(mytty, agent.event(K.STARTED), agent.capability) == INSERTED
    db = store_path(mytty)
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)
    if how == "replaced":
        sqlite3.connect(str(db)).close()  # someone put an empty database in its place

    reply = send_event(mytty, agent.event(K.RUNNING), agent.capability)
    assert reply == {"ok": False, "error": "internal-error"}, reply
    ack = control(mytty, {"type": "attention", "acknowledgeAll": True})
    assert ack["type"] in ("attention", "failure"), ack  # nothing to ack: may still answer
    log = mytty.log()
    assert "was deleted or replaced" in log, log[-2000:]
    assert log.count("was deleted or replaced") <= 2, "said once, not per event"
    # Still refusing, and still saying why only in the log it already wrote.
    for _ in range(5):
        assert send_event(mytty, agent.event(K.RUNNING), agent.capability)["ok"] is False
    assert mytty.log().count("was deleted or replaced") <= 2
