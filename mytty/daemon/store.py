"""The durable event store: SQLite in WAL mode, written by one thread in small batches.

``insert`` resolves only after the event's transaction has committed, which is what lets the
event socket answer ``inserted: true`` honestly. Events that arrive together share one
transaction, which keeps throughput up under bursts without delaying a lone event.

A restart reads the books' snapshot (``books_snapshot``: the runs and attention items as of
event sequence ``event_upto`` and acknowledgement rowid ``ack_upto``) and only the events and
acknowledgements stored after it, so it costs O(kept runs + events since the snapshot), not
O(events ever stored). The snapshot is written by the same writer, in a transaction with the
events around it; the marks come from the hub, which applies events in commit order.

Permission requests (``approval``, the approvals broker's audit) are one row each, replaced as
the request changes (held, decided, expired); ``job_approver`` records ``agent spawn
--approver`` per job.

Jobs (``agent_job``) are one row each, keyed by job id and kept in creation order (``seq``);
a job's row is replaced on every change of the job. ``terminal`` lets a restart read every
unfinished job and only the newest finished ones; older finished jobs stay readable by id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar, cast

from mytty.core.approvals import record as approval_record
from mytty.core.approvals.model import ApprovalRequest
from mytty.core.attention.items import AttentionItem
from mytty.core.events import AgentEvent
from mytty.core.jobs.record import decode_job, encode_job
from mytty.core.jobs.tracker import AgentJob, is_terminal
from mytty.core.runs.run import AgentRun
from mytty.core.runs.snapshot import BooksSnapshot, decode_snapshot, encode_snapshot
from mytty.protocol.envelope import event_from_wire
from mytty.protocol.wire import agent_event

log = logging.getLogger(__name__)

T = TypeVar("T")
R_co = TypeVar("R_co", covariant=True)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agent_event (
    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    run_id TEXT NOT NULL,
    payload TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS agent_event_run ON agent_event(run_id);
CREATE TABLE IF NOT EXISTS surface_binding (
    surface_id TEXT PRIMARY KEY,
    tmux_server TEXT NOT NULL,
    tmux_pane TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS attention_acknowledgement (
    item_id TEXT PRIMARY KEY,
    acknowledged_at REAL NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS books_snapshot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    event_upto INTEGER NOT NULL,
    ack_upto INTEGER NOT NULL,
    payload TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS agent_job (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE,
    terminal INTEGER NOT NULL,
    payload TEXT NOT NULL
) STRICT;
-- agent spawn --key looks a key up among every stored job (read_keyed_jobs): without this
-- index that read scanned the whole table (54 ms at 20,000 jobs), on the event loop.
CREATE INDEX IF NOT EXISTS agent_job_key ON agent_job (json_extract(payload, '$.key'))
    WHERE json_extract(payload, '$.key') IS NOT NULL;
CREATE TABLE IF NOT EXISTS job_usage (
    job_id TEXT PRIMARY KEY,
    payload TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS approval (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    approval_id TEXT NOT NULL UNIQUE,
    requested_at REAL NOT NULL,
    open INTEGER NOT NULL,
    payload TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS approval_requested ON approval (requested_at);
CREATE INDEX IF NOT EXISTS approval_open ON approval (open) WHERE open = 1;
CREATE TABLE IF NOT EXISTS job_approver (
    job_id TEXT PRIMARY KEY,
    approver TEXT NOT NULL
) STRICT;
"""

BUSY_TIMEOUT_MS = 1000
#: A run's newest events (``explain``): ``agent_event_run`` walked backwards, no sort, no scan.
RUN_EVENTS_SQL = (
    "SELECT sequence, payload FROM agent_event WHERE run_id = ? ORDER BY sequence DESC LIMIT ?"
)
_MAX_BATCH = 256
#: The writer never checkpoints the WAL itself: an inline auto-checkpoint fsyncs the database
#: inside a commit and stalls every reply waiting on it (multi-ms tail latency under load).
#: A separate thread runs a passive checkpoint each time this many rows were written.
CHECKPOINT_EVERY_ROWS = 1000
#: A passive checkpoint racing a sustained burst never quite catches up, so the WAL could only
#: grow; past this many frames the writer checkpoints once itself, between two transactions,
#: which lets its next transaction start the WAL over (then trimmed to WAL_SIZE_LIMIT).
WAL_MAX_FRAMES = 4096
WAL_SIZE_LIMIT = 16 * 1024 * 1024


class StoreError(Exception):
    """The store could not complete an operation."""


@dataclass(frozen=True, slots=True)
class StoredState:
    """What a restart reads: the snapshot, what was stored after it, and the marks reached."""

    snapshot: BooksSnapshot | None
    events: list[AgentEvent]
    acknowledgements: dict[str, float]
    event_upto: int
    ack_upto: int
    #: Rows read to get here (the work a restart does; tests bound it).
    rows_read: int


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(
        str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode=WAL")
    # NORMAL in WAL mode: a commit survives a process crash (kill -9); only power loss can
    # roll back the newest transactions.
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def _passive_checkpoint(conn: sqlite3.Connection) -> tuple[int, int, int] | None:
    """Run a passive checkpoint: (busy, frames in the WAL, frames copied), None on failure."""
    try:
        row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sqlite3.Error as exc:  # the next round retries
        log.warning("event store checkpoint failed: %s", exc)
        return None
    return (int(row[0]), int(row[1]), int(row[2])) if row is not None else None


def encode_payload(event: AgentEvent) -> str:
    obj = agent_event(event, fractional=True)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# -- the writer's operations ---------------------------------------------------------------------
# One frozen dataclass per kind of write, each applying itself inside the writer's transaction
# and returning what its caller awaits. A batch is a list of them, so the writer never asks
# what an operation is.


class _Write(Protocol[R_co]):
    """One operation of the writer thread, applied inside its open transaction."""

    def apply(self, conn: sqlite3.Connection) -> R_co: ...


@dataclass(frozen=True, slots=True)
class _InsertEvent:
    event: AgentEvent

    def apply(self, conn: sqlite3.Connection) -> int:
        """The new row's sequence; 0 when an event with this id is already stored."""
        event = self.event
        cur = conn.execute(
            "INSERT OR IGNORE INTO agent_event(event_id, run_id, payload) VALUES (?, ?, ?)",
            (event.id, event.run_id, encode_payload(event)),
        )
        return int(cur.lastrowid or 0) if cur.rowcount == 1 else 0


@dataclass(frozen=True, slots=True)
class _ContainsEvent:
    event_id: str

    def apply(self, conn: sqlite3.Connection) -> bool:
        found = conn.execute("SELECT 1 FROM agent_event WHERE event_id = ?", (self.event_id,))
        return found.fetchone() is not None


@dataclass(frozen=True, slots=True)
class _SaveJob:
    job: AgentJob

    def apply(self, conn: sqlite3.Connection) -> None:
        job = self.job
        conn.execute(
            "INSERT INTO agent_job(job_id, terminal, payload) VALUES (?, ?, ?) "
            "ON CONFLICT(job_id) DO UPDATE SET terminal = excluded.terminal, "
            "payload = excluded.payload",
            (job.job_id, int(is_terminal(job.state)), encode_job(job)),
        )


@dataclass(frozen=True, slots=True)
class _SaveUsage:
    job_id: str
    payload: str

    def apply(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO job_usage(job_id, payload) VALUES (?, ?)",
            (self.job_id, self.payload),
        )


@dataclass(frozen=True, slots=True)
class _SaveSnapshot:
    runs: list[AgentRun]
    items: list[AttentionItem]
    event_upto: int
    ack_upto: int

    def apply(self, conn: sqlite3.Connection) -> None:
        # Encoded here, on the writer thread: off the event loop.
        conn.execute(
            "INSERT OR REPLACE INTO books_snapshot(id, event_upto, ack_upto, payload) "
            "VALUES (1, ?, ?, ?)",
            (self.event_upto, self.ack_upto, encode_snapshot(self.runs, self.items)),
        )


@dataclass(frozen=True, slots=True)
class _DeleteRuns:
    run_ids: list[str]

    def apply(self, conn: sqlite3.Connection) -> None:
        ids = self.run_ids
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM agent_event WHERE run_id IN ({marks})", chunk)


@dataclass(frozen=True, slots=True)
class _Acknowledge:
    item_ids: list[str]
    at: float

    def apply(self, conn: sqlite3.Connection) -> int:
        """The highest acknowledgement rowid (the snapshot's mark)."""
        conn.executemany(
            "INSERT OR IGNORE INTO attention_acknowledgement(item_id, acknowledged_at) VALUES (?, ?)",
            [(item_id, self.at) for item_id in self.item_ids],
        )
        row = conn.execute("SELECT max(rowid) FROM attention_acknowledgement").fetchone()
        return int(row[0] or 0)


@dataclass(frozen=True, slots=True)
class _BindSurfaces:
    bindings: list[tuple[str, str, str]]

    def apply(self, conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT OR IGNORE INTO surface_binding(surface_id, tmux_server, tmux_pane) "
            "VALUES (?, ?, ?)",
            self.bindings,
        )


@dataclass(frozen=True, slots=True)
class _SaveApproval:
    request: ApprovalRequest

    def apply(self, conn: sqlite3.Connection) -> None:
        r = self.request
        conn.execute(
            "INSERT INTO approval(approval_id, requested_at, open, payload) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(approval_id) DO UPDATE SET open = excluded.open, "
            "payload = excluded.payload",
            (r.id, r.requested_at, int(r.open), approval_record.encode(r)),
        )


@dataclass(frozen=True, slots=True)
class _SetApprover:
    job_id: str
    approver: str

    def apply(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO job_approver(job_id, approver) VALUES (?, ?)",
            (self.job_id, self.approver),
        )


#: A queued write and the future its caller awaits.
_Pending = tuple[_Write[object], asyncio.Future[object]]


class EventStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._queue: queue.SimpleQueue[list[_Pending] | None] = queue.SimpleQueue()
        #: Writes enqueued during the loop's current pass, handed to the writer as one list at
        #: the end of it: the inserts of connections served in one pass share a transaction.
        self._handover: list[_Pending] = []
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._checkpointer: threading.Thread | None = None
        self._checkpoint_due = threading.Event()
        self._stopping = False
        self._rows_since_checkpoint = 0
        self._wal_too_long = False
        #: (st_dev, st_ino) of the database file as opened: a different answer later means it
        #: was deleted or replaced, and SQLite would go on writing into the unlinked file.
        self._identity: tuple[int, int] | None = None
        self._gone = False
        #: Write batches failed since the last one that committed (a full disk, a lock), and
        #: when the first of them failed: said once writes work again, since the log itself
        #: may not have been writable meanwhile.
        self._failed_batches = 0
        self._failing_since = 0.0
        self._failure_reason = ""

    # -- lifecycle ----------------------------------------------------------------------------
    def open(self) -> None:
        # The database, -wal and -shm files are the user's alone (0600), whatever the umask.
        # SQLite creates -wal/-shm with the database file's mode, so the database is tightened
        # first; the umask covers a database created right here.
        self._tighten()
        old = os.umask(0o077)
        try:
            self._conn = _connect(self.path)
            self._conn.executescript(_SCHEMA)
        finally:
            os.umask(old)
        self._tighten()
        st = os.stat(self.path)
        self._identity = (st.st_dev, st.st_ino)

    def _tighten(self) -> None:
        """Make the database and its -wal/-shm files 0600 (those that exist)."""
        for path in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
            try:
                if stat.S_IMODE(path.stat().st_mode) != 0o600:
                    path.chmod(0o600)
            except FileNotFoundError:
                pass
            except OSError as exc:  # pragma: no cover - not ours to fix; say so
                log.warning("could not make %s private: %s", path, exc)

    def start_writer(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.Thread(target=self._writer, name="mytty-store", daemon=True)
        self._thread.start()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, name="mytty-store-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def close(self) -> None:
        if self._thread is not None:
            self._hand_over()
            self._queue.put(None)
            self._thread.join(5)
            self._thread = None
        if self._checkpointer is not None:
            self._stopping = True
            self._checkpoint_due.set()
            self._checkpointer.join(5)
            self._checkpointer = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- reads (startup, before the writer runs) ------------------------------------------------
    def load_state(self) -> StoredState:
        """The snapshot (if any) and everything stored after it, with the rows read for it."""
        assert self._conn is not None
        snapshot: BooksSnapshot | None = None
        event_upto = ack_upto = 0
        row = self._conn.execute(
            "SELECT event_upto, ack_upto, payload FROM books_snapshot WHERE id = 1"
        ).fetchone()
        rows_read = 0
        if row is not None:
            rows_read += 1
            snapshot = decode_snapshot(row[2])
            if snapshot is None:
                log.warning("the stored snapshot is unreadable; replaying every stored event")
            else:
                event_upto, ack_upto = int(row[0]), int(row[1])
        events: list[AgentEvent] = []
        marks = [event_upto, ack_upto]
        for sequence, payload in self._conn.execute(
            "SELECT sequence, payload FROM agent_event WHERE sequence > ? ORDER BY sequence",
            (event_upto,),
        ):
            rows_read += 1
            marks[0] = sequence
            try:
                events.append(event_from_wire(json.loads(payload)))
            except (ValueError, TypeError):
                log.warning("skipping an unreadable stored event")
        acks: dict[str, float] = {}
        for rowid, item_id, at in self._conn.execute(
            "SELECT rowid, item_id, acknowledged_at FROM attention_acknowledgement "
            "WHERE rowid > ? ORDER BY rowid",
            (ack_upto,),
        ):
            rows_read += 1
            marks[1] = rowid
            acks[item_id] = at
        return StoredState(snapshot, events, acks, marks[0], marks[1], rows_read)

    def load_surface_bindings(self) -> dict[str, tuple[str, str]]:
        """Every surface id ever issued → (tmux server identity, tmux pane id) it belongs to."""
        assert self._conn is not None
        rows = self._conn.execute("SELECT surface_id, tmux_server, tmux_pane FROM surface_binding")
        return {surface: (server, pane) for surface, server, pane in rows}

    def load_jobs(self, finished_limit: int) -> list[AgentJob]:
        """Every unfinished job and the newest ``finished_limit`` finished ones, oldest first."""
        assert self._conn is not None
        rows = self._conn.execute(
            "SELECT seq, payload FROM agent_job WHERE terminal = 0 UNION ALL "
            "SELECT * FROM (SELECT seq, payload FROM agent_job WHERE terminal = 1 "
            "ORDER BY seq DESC LIMIT ?) ORDER BY 1",
            (finished_limit,),
        ).fetchall()
        return [job for _seq, payload in rows if (job := self._decode_job(payload)) is not None]

    def load_usage(self) -> dict[str, str]:
        """Every job's stored usage record (``daemon.transcripts_usage``), by job id."""
        assert self._conn is not None
        rows = self._conn.execute("SELECT job_id, payload FROM job_usage")
        return dict(rows)

    def read_job(self, job_id: str) -> AgentJob | None:
        """One stored job by id (a finished job no longer kept in memory); None when unknown.

        A read on the reader connection: in WAL mode it never waits for the writer.
        """
        if self._conn is None:
            return None
        try:
            row = self._conn.execute(
                "SELECT payload FROM agent_job WHERE job_id = ?", (job_id,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"could not read job {job_id}: {exc}") from exc
        return self._decode_job(row[0]) if row is not None else None

    def read_keyed_jobs(self, key: str) -> list[AgentJob]:
        """Every stored job spawned with ``agent spawn --key key``, oldest first (for a key whose
        job is no longer in memory). Raises StoreError."""
        if self._conn is None:
            return []
        try:
            rows = self._conn.execute(
                "SELECT payload FROM agent_job WHERE json_extract(payload, '$.key') = ? "
                "ORDER BY seq",
                (key,),
            ).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"could not read the jobs of key {key!r}: {exc}") from exc
        return [job for (payload,) in rows if (job := self._decode_job(payload)) is not None]

    def load_open_approvals(self) -> list[ApprovalRequest]:
        """Every request stored as still open (a restart then decides what became of it)."""
        assert self._conn is not None
        rows = self._conn.execute("SELECT payload FROM approval WHERE open = 1 ORDER BY seq")
        return [r for (payload,) in rows if (r := approval_record.decode(payload)) is not None]

    def load_approvers(self) -> dict[str, str]:
        """``agent spawn --approver`` of every job that was given one, by job id."""
        assert self._conn is not None
        return dict(self._conn.execute("SELECT job_id, approver FROM job_approver"))

    def read_approvals(self, since: float, limit: int) -> list[ApprovalRequest]:
        """The requests made at or after ``since``, newest first, at most ``limit`` (a read
        on the reader connection: it never waits for the writer). Raises StoreError."""
        if self._conn is None:
            return []
        try:
            rows = self._conn.execute(
                "SELECT payload FROM approval WHERE requested_at >= ? "
                "ORDER BY requested_at DESC, seq DESC LIMIT ?",
                (since, limit),
            ).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"could not read the approvals log: {exc}") from exc
        return [r for (payload,) in rows if (r := approval_record.decode(payload)) is not None]

    def read_run_events(
        self, run_ids: Iterable[str], per_run: int
    ) -> tuple[list[tuple[int, AgentEvent]], set[str]]:
        """The newest ``per_run`` stored events of each run (``explain``), oldest first, with
        their sequence; and the runs that have more stored events than that.

        Blocking: call it in a thread. It reads on a connection of its own, opened there (a
        WAL reader never waits for the writer), one indexed query per run (``agent_event_run``
        walked backwards), so its cost is O(runs × per_run), whatever the history. Raises
        StoreError.
        """
        rows: list[tuple[int, AgentEvent]] = []
        more: set[str] = set()
        try:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise StoreError(f"could not open the event store: {exc}") from exc
        try:
            for run_id in dict.fromkeys(run_ids):
                found = conn.execute(RUN_EVENTS_SQL, (run_id, per_run + 1)).fetchall()
                if len(found) > per_run:
                    more.add(run_id)
                    found = found[:per_run]
                for sequence, payload in found:
                    try:
                        rows.append((int(sequence), event_from_wire(json.loads(payload))))
                    except (ValueError, TypeError):
                        log.warning("skipping an unreadable stored event")
        except sqlite3.Error as exc:
            raise StoreError(f"could not read stored events: {exc}") from exc
        finally:
            conn.close()
        rows.sort(key=lambda row: row[0])
        return rows, more

    @staticmethod
    def _decode_job(payload: str) -> AgentJob | None:
        job = decode_job(payload)
        if job is None:
            log.warning("skipping an unreadable stored job")
        return job

    # -- writes (through the writer thread) ------------------------------------------------------
    async def save_job(self, job: AgentJob) -> None:
        """Store (insert or replace) one job; resolves once committed. Raises StoreError."""
        await self._submit(_SaveJob(job))

    def save_job_soon(self, job: AgentJob) -> asyncio.Future[object]:
        """Queue a job's new state without waiting for the commit (from synchronous code).

        Writes are applied in the order they are queued, so a job's rows never go back in time.
        The future carries the outcome (StoreError when the write failed or the store is closed).
        """
        return self._enqueue(_SaveJob(job))

    def save_usage_soon(self, job_id: str, payload: str) -> asyncio.Future[object]:
        """Queue a job's usage record (insert or replace), like :meth:`save_job_soon`."""
        return self._enqueue(_SaveUsage(job_id, payload))

    async def save_approval(self, request: ApprovalRequest) -> None:
        """Store (insert or replace) one request; resolves once committed. Raises StoreError."""
        await self._submit(_SaveApproval(request))

    def save_approval_soon(self, request: ApprovalRequest) -> asyncio.Future[object]:
        """Queue a request's new state without waiting for the commit (writes keep their order)."""
        return self._enqueue(_SaveApproval(request))

    async def set_approver(self, job_id: str, approver: str) -> None:
        """Record a job's ``--approver``; resolves once committed. Raises StoreError."""
        await self._submit(_SetApprover(job_id, approver))

    async def insert(self, event: AgentEvent) -> int:
        """Insert one event: its sequence when new, 0 for a duplicate id. Raises StoreError."""
        return await self._submit(_InsertEvent(event))

    async def contains(self, event_id: str) -> bool:
        """True when an event with this id is stored (it may be unknown to the books)."""
        return await self._submit(_ContainsEvent(event_id))

    async def save_snapshot(
        self, runs: list[AgentRun], items: list[AttentionItem], event_upto: int, ack_upto: int
    ) -> None:
        """Replace the books' snapshot; the writer thread encodes it, off the event loop."""
        await self._submit(_SaveSnapshot(runs, items, event_upto, ack_upto))

    async def delete_runs(self, run_ids: Iterable[str]) -> None:
        await self._submit(_DeleteRuns(list(run_ids)))

    async def acknowledge(self, item_ids: Iterable[str], at: float) -> int:
        """Store acknowledgements of attention items, all in one transaction. Raises StoreError.

        Returns the highest acknowledgement rowid once committed (the snapshot's mark).
        """
        return await self._submit(_Acknowledge(list(item_ids), at))

    async def bind_surfaces(self, bindings: Iterable[tuple[str, str, str]]) -> None:
        """Record (surface id, tmux server, tmux pane) bindings; the first one of an id stays."""
        await self._submit(_BindSurfaces(list(bindings)))

    async def _submit(self, op: _Write[T]) -> T:
        # The writer settles the future with what op.apply returned: a T.
        return cast(T, await self._enqueue(op))

    def _enqueue(self, op: _Write[object]) -> asyncio.Future[object]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[object] = loop.create_future()
        if self._thread is None:
            raise StoreError("the store is closed")
        if not self._handover:
            loop.call_soon(self._hand_over)
        self._handover.append((op, fut))
        return fut

    def _hand_over(self) -> None:
        if self._handover:
            pending, self._handover = self._handover, []
            self._queue.put(pending)

    def _writer(self) -> None:
        conn = _connect(self.path)
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        try:
            while True:
                first = self._queue.get()
                if first is None:
                    return
                batch = first
                stop = False
                while len(batch) < _MAX_BATCH:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is None:
                        stop = True
                        break
                    batch.extend(item)
                for start in range(0, len(batch), _MAX_BATCH):
                    self._run_batch(conn, batch[start : start + _MAX_BATCH])
                if stop:
                    return
        finally:
            conn.close()

    def _file_problem(self) -> str | None:
        """Why committed rows would not be in the store's file any more (None: they are)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            pass
        except OSError:  # cannot tell: claim nothing
            return None
        else:
            if (st.st_dev, st.st_ino) == self._identity:
                return None
        return (
            f"the event store {self.path} was deleted or replaced while mytty ran; nothing "
            "more is stored until the controller restarts (mytty stop, then mytty start)"
        )

    def _run_batch(self, conn: sqlite3.Connection, batch: list[_Pending]) -> None:
        if self._gone:
            gone = StoreError("the event store file is gone (see the first error in the log)")
            self._settle_all([(fut, None, gone) for _op, fut in batch])
            return
        results: list[object] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for op, _fut in batch:
                results.append(op.apply(conn))
            conn.execute("COMMIT")
            # Checked after the commit: a commit into a deleted file must not be acknowledged.
            problem = self._file_problem() if self._identity is not None else None
            if problem is not None:
                self._gone = True
                log.error("%s", problem)
                error = StoreError(problem)
                self._settle_all([(fut, None, error) for _op, fut in batch])
                return
        except Exception as exc:  # noqa: BLE001 - not just sqlite3.Error: a dead writer would hang every insert
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            # Once per episode and reason (a hook flood on a corrupt or full store would
            # otherwise write two lines per event); the recovery line gives the count.
            if not self._failed_batches or str(exc) != self._failure_reason:
                log.error("event store write failed: %s", exc)
                self._failure_reason = str(exc)
            if not self._failed_batches:
                self._failing_since = time.time()
            self._failed_batches += 1
            error = StoreError(str(exc))
            self._settle_all([(fut, None, error) for _op, fut in batch])
            return
        self._settle_all(
            [(fut, result, None) for (_op, fut), result in zip(batch, results, strict=True)]
        )
        if self._failed_batches:
            log.warning(
                "event store writes work again: %d write batches failed since %s (their "
                "events were answered with an error, not acknowledged)",
                self._failed_batches,
                time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self._failing_since)),
            )
            self._failed_batches = 0
        self._rows_since_checkpoint += len(batch)
        if self._rows_since_checkpoint >= CHECKPOINT_EVERY_ROWS:
            self._rows_since_checkpoint = 0
            self._checkpoint_due.set()
        if self._wal_too_long:
            # Nobody else writes now, so this one completes unless the background pass holds
            # the checkpoint lock; then the flag stays and the next batch tries again.
            result = _passive_checkpoint(conn)
            self._wal_too_long = result is None or result[0] != 0 or result[1] != result[2]

    def _checkpoint_loop(self) -> None:
        """Copy the WAL into the database off the commit path (PASSIVE never blocks writers)."""
        conn = _connect(self.path)
        try:
            while True:
                self._checkpoint_due.wait()
                self._checkpoint_due.clear()
                if self._stopping:
                    return
                result = _passive_checkpoint(conn)
                if result is not None and result[1] > WAL_MAX_FRAMES:
                    self._wal_too_long = True
                self._tighten()  # should SQLite ever have created the WAL files anew
        finally:
            conn.close()

    def _settle_all(
        self, outcomes: list[tuple[asyncio.Future[object], object, Exception | None]]
    ) -> None:
        """Resolve a batch's futures in the loop, in order, with one wake-up of the loop.

        One ``call_soon_threadsafe`` per batch, not per write: each call writes the loop's
        self-pipe and wakes it, which under a hook flood cost more than the inserts.
        """
        assert self._loop is not None

        def settle() -> None:
            for fut, result, error in outcomes:
                if fut.done():
                    continue
                if error is not None:
                    fut.set_exception(error)
                else:
                    fut.set_result(result)

        self._loop.call_soon_threadsafe(settle)
