"""The event store failing under a running controller: full, locked, corrupted (issue 15).

What tests/e2e/test_store_failures.py does not cover yet. Each fault is real, made without
root: a full disk is the controller's own RLIMIT_FSIZE lowered from outside (prlimit), so every
write past the limit fails with EFBIG as a full disk fails with ENOSPC (CPython ignores
SIGXFSZ); a lock is another connection holding SQLite's write lock; corruption is garbage
written over the file's first pages. In each case the controller stays up and keeps serving
what needs no write, answers writes with an error instead of ``inserted: true``, says why, and
recovers once the fault is gone; and every acknowledged event is in the store afterwards.

A read-only store cannot be made under a running controller (Linux refuses to remount
read-only while files are open for writing), so it is met at the next start: as root by a
read-only bind mount in the controller's own mount namespace, otherwise by permission bits.
"""

from __future__ import annotations

import os
import resource
import shlex
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from mytty.daemon.events.ingest import scoped_event_id
from tests.e2e.events_support import (
    INSERTED,
    AgentPane,
    K,
    error_reply,
    new_id,
    open_agent_pane,
    send_event,
    store_path,
    stored_events,
)
from tests.support.harness import Mytty, wait_until

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]


class Ledger:
    """Events sent for one pane's run, split by what the controller answered."""

    def __init__(self, m: Mytty, pane: AgentPane) -> None:
        self.m, self.pane, self.run = m, pane, new_id()
        self.acked: list[str] = []
        self.refused: list[str] = []

    def send(self) -> dict[str, object]:
        kind = K.STARTED if not self.acked else K.RUNNING
        event = self.pane.event(kind, run_id=self.run)
        reply = send_event(self.m, event, self.pane.capability)
        (self.acked if reply == INSERTED else self.refused).append(scoped_event_id(event))
        return reply

    def check_stored(self) -> None:
        ids = [row["id"]["rawValue"] for row in stored_events(self.m)]
        assert len(ids) == len(set(ids)), "an event is stored twice"
        missing = set(self.acked) - set(ids)
        assert not missing, f"{len(missing)} acknowledged events are not stored"


def still_serving(m: Mytty) -> None:
    assert m.proc is not None and m.proc.poll() is None, m.log()[-3000:]
    assert m.ctl("list").returncode == 0


def refused_then_recovered(m: Mytty, fault: object) -> Ledger:
    """Events before, during (``fault``, a context manager) and after the fault."""
    ledger = Ledger(m, open_agent_pane(m))
    for _ in range(5):
        assert ledger.send() == INSERTED
    with fault:  # type: ignore[attr-defined]
        for _ in range(3):
            assert ledger.send() == error_reply("internal-error")
        still_serving(m)
    wait_until(lambda: ledger.send() == INSERTED, 20, message="the store to take events again")
    for _ in range(5):
        assert ledger.send() == INSERTED
    ledger.check_stored()
    m.stop()
    m.start()
    ledger.check_stored()
    assert ledger.send() == INSERTED
    return ledger


@contextmanager
def file_size_limit(m: Mytty, limit: int) -> Iterator[None]:
    assert m.proc is not None
    pid = m.proc.pid
    before = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (limit, before[1]))
    try:
        yield
    finally:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, before)


@contextmanager
def write_locked(m: Mytty) -> Iterator[None]:
    conn = sqlite3.connect(str(store_path(m)), timeout=5, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def test_a_full_disk_refuses_events_and_recovers(mytty: Mytty) -> None:
    m = mytty
    ledger = refused_then_recovered(m, file_size_limit(m, 1))
    assert len(ledger.refused) >= 3
    # What the controller logged while nothing could be written is lost with the rest; once
    # the disk has room again, the log says what happened meanwhile.
    assert "event store writes work again" in m.log()


def test_a_locked_store_refuses_events_and_recovers(mytty: Mytty) -> None:
    m = mytty
    refused_then_recovered(m, write_locked(m))
    log = m.log()
    assert "database is locked" in log and "event store writes work again" in log


def test_an_attention_ack_on_a_full_disk_changes_nothing(mytty: Mytty) -> None:
    m = mytty
    agent = open_agent_pane(m)
    run = agent.send(K.STARTED).run_id
    agent.send(K.FAILED, run_id=run, message="broke")
    with file_size_limit(m, 1):
        reply = m.request({"type": "attention", "acknowledgeAll": True})
        assert reply["type"] == "failure" and reply["code"] == "internal-error", reply
        assert "nothing was acknowledged" in reply["message"]
        still_serving(m)
    items = m.request({"type": "attention"})["items"]
    assert [i["runID"] for i in items if i["resolvedAt"] is None] == [run]
    assert m.request({"type": "attention", "acknowledgeAll": True})["type"] == "attention"


def test_a_store_corrupted_under_the_controller_acknowledges_nothing(mytty: Mytty) -> None:
    m = mytty
    ledger = Ledger(m, open_agent_pane(m))
    for _ in range(5):
        assert ledger.send() == INSERTED
    db = store_path(m)
    # Everything into the main file first, so the garbage is not healed by the WAL's pages.
    outside = sqlite3.connect(str(db))
    assert outside.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    outside.close()
    with open(db, "r+b") as f:
        f.write(b"\xa5" * 8192)

    for _ in range(20):
        assert ledger.send() == error_reply("internal-error")
    still_serving(m)
    log = m.log()
    assert "file is not a database" in log
    assert log.count("event store write failed") <= 2, "said once, not per event"

    # The next start refuses the file in one line and names it; moved away, a new store starts.
    m.stop()
    with pytest.raises(AssertionError, match="cannot be read"):
        m.start()
    db.rename(db.with_name("events.sqlite3.corrupt"))
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    m.start()
    assert ledger.send() == INSERTED
    assert "Traceback" not in m.log().split("cannot be read")[-1]


def read_only_wrapper(m: Mytty) -> tuple[str, ...]:
    """A command that makes the controller's home a read-only mount, then execs the rest.

    As root permission bits bind nothing, so the home is a read-only bind mount in a mount
    namespace of the controller's own; otherwise the home and its files lose their write bits.
    """
    if os.geteuid() != 0:
        for path in m.mytty_home.iterdir():
            path.chmod(0o400)
        m.mytty_home.chmod(0o500)
        return ()
    home = shlex.quote(str(m.mytty_home))
    script = f'mount --bind {home} {home} && mount -o remount,bind,ro {home} && exec "$@"'
    return ("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh")


def test_a_read_only_store_is_refused_at_start_in_one_line(mytty: Mytty) -> None:
    """A filesystem that went read-only cannot be made under a running controller (Linux
    refuses a read-only remount while files are open for writing: EBUSY), so the read-only
    store is met where it can be: at the next start, which must say so in one line."""
    m = mytty
    ledger = Ledger(m, open_agent_pane(m))
    for _ in range(3):
        assert ledger.send() == INSERTED
    m.stop()
    if os.geteuid() == 0 and shutil.which("unshare") is None:  # pragma: no cover
        pytest.fail("root without unshare: no way to make the home read-only")
    wrapper = read_only_wrapper(m)
    try:
        with pytest.raises(AssertionError) as failed:
            m.start(wrapper=wrapper)
    finally:
        m.mytty_home.chmod(0o700)
        for path in m.mytty_home.iterdir():
            path.chmod(0o600 if path.is_file() else 0o700)
    message = str(failed.value).splitlines()[0]
    print(message)
    assert "invalid-home" in message and str(m.mytty_home) in message, message
    assert "Traceback" not in m.log()
    m.start()
    ledger.check_stored()
    assert ledger.send() == INSERTED
