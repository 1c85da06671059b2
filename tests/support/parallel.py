"""What the suite needs to run on several pytest-xdist workers at once (scripts/test uses them).

- ``worker_count``: how many workers ``-n auto`` starts. Most tests wait on tmux servers,
  controllers and subprocesses rather than compute, so a core carries more than one worker.
- ``Turns``: a test marked ``alone`` (a timing ratio between a quiet and a loaded run) runs
  with no other test running on any worker; every other test runs beside any other one.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Workers per available core when neither ``-n N`` nor PYTEST_XDIST_AUTO_NUM_WORKERS says.
WORKERS_PER_CPU = 2


def worker_count(environ: dict[str, str] | os._Environ[str] = os.environ) -> int:
    """``-n auto``: PYTEST_XDIST_AUTO_NUM_WORKERS when set, else WORKERS_PER_CPU per core."""
    configured = environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").strip()
    if configured:
        return max(0, int(configured))
    return WORKERS_PER_CPU * len(os.sched_getaffinity(0))


class Turns:
    """A readers-writer lock across processes, on two files of one directory.

    Ordinary tests hold ``hold`` shared; an ``alone`` test holds it exclusively. ``gate`` makes
    the exclusive one first in line: while it waits for the running tests to end, no new test
    starts (flock alone would let a stream of shared holders starve it).
    """

    def __init__(self, directory: Path) -> None:
        # Opened once per process: flock belongs to the open file, so each worker is one holder.
        self._gate = open(directory / "gate", "a+b")  # noqa: SIM115 - closed in close()
        self._hold = open(directory / "hold", "a+b")  # noqa: SIM115 - closed in close()

    @contextmanager
    def shared(self) -> Iterator[None]:
        fcntl.flock(self._gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(self._hold, fcntl.LOCK_SH)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(self._hold, fcntl.LOCK_UN)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        fcntl.flock(self._gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(self._hold, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self._hold, fcntl.LOCK_UN)
        finally:
            fcntl.flock(self._gate, fcntl.LOCK_UN)

    def close(self) -> None:
        self._gate.close()
        self._hold.close()
