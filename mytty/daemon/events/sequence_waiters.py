"""Futures parked until the ledger's tip passes a cursor (the ``events`` long poll).

An ``events`` poll can only be answered once the ledger holds a record past its cursor, so it
is woken then and not on every event. Found by the reliability suite: 500 polls with a cursor
ahead of the tip (one from before a controller restart is exactly that) re-ran their probes on
every event and multiplied the event socket's p99 by ~8.
"""

from __future__ import annotations

import asyncio
import heapq

#: The heap of thresholds is rebuilt once it holds this many more entries than live thresholds
#: (entries of abandoned polls are left in it until then).
STALE_SLACK = 64


class SequenceWaiters:
    def __init__(self) -> None:
        self._by_after: dict[int, set[asyncio.Future[None]]] = {}
        self._heap: list[int] = []

    def __len__(self) -> int:
        return sum(len(futures) for futures in self._by_after.values())

    def thresholds(self) -> int:
        """Entries in the heap (live or stale): what the structure costs."""
        return len(self._heap)

    def add(self, after: int, fut: asyncio.Future[None]) -> None:
        futures = self._by_after.get(after)
        if futures is None:
            futures = self._by_after[after] = set()
            heapq.heappush(self._heap, after)
        futures.add(fut)

    def discard(self, after: int, fut: asyncio.Future[None]) -> None:
        futures = self._by_after.get(after)
        if futures is None:
            return
        futures.discard(fut)
        if not futures:
            del self._by_after[after]
            if len(self._heap) > 2 * len(self._by_after) + STALE_SLACK:
                self._heap = sorted(self._by_after)  # a sorted list is a heap

    def advance(self, latest: int) -> None:
        """The tip is now ``latest``: wake every waiter whose cursor it passed."""
        heap = self._heap
        while heap and heap[0] < latest:
            for fut in self._by_after.pop(heapq.heappop(heap), ()):
                if not fut.done():
                    fut.set_result(None)
