"""The in-memory ledger behind the ``events`` long-poll (semantics §6, with the issue's fixes).

Every inserted event on the normal receive path is appended as a small record with a sequence
number (from 1, +1 per record). The ledger keeps the newest ``capacity`` records; eviction never
lowers ``latest_sequence``. Two deliberate departures from the original:

- when a page is cut short at ``page_size`` records, the page's ``latest_sequence`` is the last
  record *returned*, so the documented loop (feed ``latestSequence`` back as the next cursor)
  sees every retained record exactly once instead of skipping the rest of a burst;
- a page says ``truncated`` when records after the cursor were already evicted, so a slow
  consumer can tell that delivery had a gap.

Blocking, deadlines and the wire envelope belong to the control layer; this module only answers
"what is after cursor N right now".
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId

LEDGER_CAPACITY = 1000
LEDGER_PAGE_SIZE = 200


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    sequence: int
    surface_id: SurfaceId
    provider: AgentProvider
    run_id: RunId
    kind: AgentEventKind
    occurred_at: float  # Unix seconds
    tool_name: str | None
    synthesized: bool

    @classmethod
    def from_event(cls, sequence: int, event: AgentEvent) -> LedgerRecord:
        return cls(
            sequence=sequence,
            surface_id=event.surface_id,
            provider=event.provider,
            run_id=event.run_id,
            kind=event.kind,
            occurred_at=event.occurred_at,
            tool_name=event.tool_name,
            synthesized=event.synthesized,
        )


@dataclass(frozen=True, slots=True)
class LedgerPage:
    """One answer to :meth:`EventLedger.query`.

    ``latest_sequence`` is the cursor to send next: the tip, or the last returned record when
    more records were pending than one page holds.
    """

    records: tuple[LedgerRecord, ...]
    latest_sequence: int
    truncated: bool


class EventLedger:
    """A bounded, append-only log of event records with monotonically increasing sequences."""

    __slots__ = ("_latest", "_page_size", "_records")

    def __init__(self, capacity: int = LEDGER_CAPACITY, page_size: int = LEDGER_PAGE_SIZE) -> None:
        if capacity < 1 or page_size < 1:
            raise ValueError("capacity and page_size must be at least 1")
        self._records: deque[LedgerRecord] = deque(maxlen=capacity)
        self._latest = 0
        self._page_size = page_size

    def __len__(self) -> int:
        return len(self._records)

    @property
    def latest_sequence(self) -> int:
        """The last sequence assigned; 0 before the first append."""
        return self._latest

    @property
    def first_retained_sequence(self) -> int:
        """The oldest sequence still held; ``latest_sequence + 1`` when the ledger is empty."""
        return self._records[0].sequence if self._records else self._latest + 1

    def append(self, event: AgentEvent) -> LedgerRecord:
        """Record an inserted event; the oldest record is evicted once capacity is reached."""
        self._latest += 1
        record = LedgerRecord.from_event(self._latest, event)
        self._records.append(record)
        return record

    def has_records_after(self, after: int) -> bool:
        """True when a query with this cursor would return records now (the wait condition)."""
        return self._latest > after

    def query(self, after: int | None) -> LedgerPage:
        """Records with ``sequence > after``, oldest first, at most one page.

        ``after=None`` returns no records and the tip (a caller's way to learn where "now" is).
        A cursor at or above the tip returns no records; the caller blocks until the tip passes
        it (a cursor from a previous controller instance behaves the same way).
        """
        if after is None or after >= self._latest:
            return LedgerPage(records=(), latest_sequence=self._latest, truncated=False)
        cursor = max(after, 0)
        first = self.first_retained_sequence
        # Sequences in the deque are contiguous, so the first wanted record sits at a known index.
        start = max(0, cursor + 1 - first)
        end = min(len(self._records), start + self._page_size)
        page = tuple(self._records[i] for i in range(start, end))
        cut_short = end < len(self._records)
        return LedgerPage(
            records=page,
            latest_sequence=page[-1].sequence if cut_short else self._latest,
            truncated=cursor < first - 1,
        )
