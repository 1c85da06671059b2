"""The store's files are the user's alone: database, -wal and -shm are 0600 (issue 15 #10).

Measured under umask 0, the worst a user can have: SQLite then creates files 0644, and its
-wal/-shm files copy the database's mode at the moment they are created.
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.daemon.store import EventStore


@pytest.fixture
def umask_zero() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(db: Path) -> dict[str, int]:
    return {
        p.name: stat.S_IMODE(p.stat().st_mode)
        for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"))
        if p.exists()
    }


def store_some_events(db: Path) -> dict[str, int]:
    async def main() -> dict[str, int]:
        store = EventStore(db)
        store.open()
        store.start_writer(asyncio.get_running_loop())
        try:
            for _ in range(3):
                await store.insert(
                    AgentEvent(
                        id=str(uuid.uuid4()).upper(),
                        run_id=RunId(str(uuid.uuid4()).upper()),
                        surface_id=SurfaceId(str(uuid.uuid4()).upper()),
                        provider=AgentProvider.CLAUDE_CODE,
                        kind=AgentEventKind.STARTED,
                        occurred_at=time.time(),
                    )
                )
            return modes(db)  # while the controller runs: the WAL files exist
        finally:
            store.close()

    return asyncio.run(main())


def test_a_new_store_is_0600_under_umask_0(tmp_path: Path, umask_zero: None) -> None:
    db = tmp_path / "events.sqlite3"
    seen = store_some_events(db)
    assert set(seen) == {db.name, f"{db.name}-wal", f"{db.name}-shm"}, seen
    assert set(seen.values()) == {0o600}, {k: oct(v) for k, v in seen.items()}


def test_an_old_world_readable_store_is_tightened(tmp_path: Path, umask_zero: None) -> None:
    db = tmp_path / "events.sqlite3"
    store_some_events(db)
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if p.exists():
            p.chmod(0o644)
    seen = store_some_events(db)
    assert set(seen.values()) == {0o600}, {k: oct(v) for k, v in seen.items()}
