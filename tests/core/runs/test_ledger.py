"""The events long-poll ledger: sequences, pages, eviction and the wire record."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.runs.ledger import (
    LEDGER_CAPACITY,
    LEDGER_PAGE_SIZE,
    EventLedger,
    LedgerPage,
    LedgerRecord,
)

PANE = SurfaceId(stable_uuid("test", "pane"))
RUN = RunId(stable_uuid("test", "run"))


def event(
    n: int,
    *,
    tool: str | None = None,
    hook: str | None = None,
    kind: AgentEventKind = AgentEventKind.RUNNING,
) -> AgentEvent:
    return AgentEvent(
        id=stable_uuid("ledger-event", str(n)),
        run_id=RUN,
        surface_id=PANE,
        provider=AgentProvider.CLAUDE_CODE,
        kind=kind,
        occurred_at=1_784_185_200.0 + n,
        hook_name=hook,
        tool_name=tool,
    )


def filled(count: int, **kwargs: int) -> EventLedger:
    ledger = EventLedger(**kwargs)
    for n in range(count):
        ledger.append(event(n))
    return ledger


def sequences(page: LedgerPage) -> list[int]:
    return [record.sequence for record in page.records]


def test_defaults_match_the_spec() -> None:
    assert (LEDGER_CAPACITY, LEDGER_PAGE_SIZE) == (1000, 200)
    ledger = EventLedger()
    assert ledger.latest_sequence == 0 and len(ledger) == 0


def test_sequences_start_at_one_and_records_copy_the_event() -> None:
    ledger = EventLedger()
    first = ledger.append(
        event(0, tool="Bash", hook="PreToolUse", kind=AgentEventKind.APPROVAL_REQUESTED)
    )
    second = ledger.append(event(1, hook="mytty.runSuperseded", kind=AgentEventKind.IDLE))
    assert first == LedgerRecord(
        sequence=1,
        surface_id=PANE,
        provider=AgentProvider.CLAUDE_CODE,
        run_id=RUN,
        kind=AgentEventKind.APPROVAL_REQUESTED,
        occurred_at=1_784_185_200.0,
        tool_name="Bash",
        synthesized=False,
    )
    assert second.sequence == 2 and second.synthesized and second.tool_name is None
    assert ledger.latest_sequence == 2


def test_no_cursor_returns_only_the_tip() -> None:
    ledger = filled(5)
    assert ledger.query(None) == LedgerPage(records=(), latest_sequence=5, truncated=False)
    assert EventLedger().query(None) == LedgerPage(records=(), latest_sequence=0, truncated=False)


def test_cursor_zero_returns_everything_when_small() -> None:
    page = filled(5).query(0)
    assert sequences(page) == [1, 2, 3, 4, 5]
    assert page.latest_sequence == 5 and not page.truncated


def test_cursor_in_the_middle() -> None:
    page = filled(5).query(3)
    assert sequences(page) == [4, 5] and page.latest_sequence == 5


@pytest.mark.parametrize("after", [5, 6, 10_000])
def test_cursor_at_or_above_tip_returns_nothing(after: int) -> None:
    ledger = filled(5)
    assert ledger.query(after) == LedgerPage(records=(), latest_sequence=5, truncated=False)
    assert not ledger.has_records_after(after)
    assert ledger.has_records_after(4)


def test_empty_ledger_with_cursor_zero() -> None:
    assert EventLedger().query(0) == LedgerPage(records=(), latest_sequence=0, truncated=False)


def test_burst_page_is_cut_at_page_size_with_the_last_returned_sequence() -> None:
    ledger = filled(450)
    page = ledger.query(0)
    assert sequences(page) == list(range(1, 201))
    assert page.latest_sequence == 200 and not page.truncated
    exactly_one_page = filled(200).query(0)
    assert exactly_one_page.latest_sequence == 200 and len(exactly_one_page.records) == 200


def test_documented_loop_sees_every_record_of_a_burst_exactly_once() -> None:
    ledger = filled(3)
    cursor = ledger.query(None).latest_sequence
    for n in range(3, 3 + 731):  # a burst far larger than one page
        ledger.append(event(n))
    seen: list[int] = []
    pages = 0
    while True:
        page = ledger.query(cursor)
        if not page.records:
            break
        pages += 1
        assert not page.truncated
        seen.extend(sequences(page))
        cursor = page.latest_sequence
    assert seen == list(range(4, 3 + 731 + 1))
    assert pages == 4 and cursor == ledger.latest_sequence


def test_eviction_keeps_latest_sequence_and_marks_truncation() -> None:
    ledger = filled(1250)
    assert len(ledger) == 1000 and ledger.latest_sequence == 1250
    assert ledger.first_retained_sequence == 251
    stale = ledger.query(10)
    assert stale.truncated and sequences(stale) == list(range(251, 451))
    assert stale.latest_sequence == 450
    edge = ledger.query(250)  # nothing after 250 was lost
    assert not edge.truncated and sequences(edge)[0] == 251
    just_lost = ledger.query(249)  # record 250 was evicted
    assert just_lost.truncated and sequences(just_lost)[0] == 251
    tail = ledger.query(1200)
    assert sequences(tail) == list(range(1201, 1251)) and tail.latest_sequence == 1250


def test_small_capacity_and_page_size() -> None:
    ledger = filled(7, capacity=3, page_size=2)
    page = ledger.query(0)
    assert sequences(page) == [5, 6] and page.truncated and page.latest_sequence == 6
    page = ledger.query(page.latest_sequence)
    assert sequences(page) == [7] and not page.truncated and page.latest_sequence == 7


def test_negative_cursor_behaves_like_zero() -> None:
    ledger = filled(3)
    assert ledger.query(-5) == ledger.query(0)


@pytest.mark.parametrize("kwargs", [{"capacity": 0}, {"page_size": 0}])
def test_rejects_degenerate_sizes(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        EventLedger(**kwargs)


@settings(max_examples=200)
@given(
    capacity=st.integers(1, 30),
    page_size=st.integers(1, 10),
    bursts=st.lists(st.integers(0, 40), min_size=1, max_size=8),
)
def test_consumer_loop_gets_each_record_at_most_once_in_order(
    capacity: int, page_size: int, bursts: list[int]
) -> None:
    """A consumer polling between bursts sees every record exactly once unless it was evicted,
    and whenever it missed some, the page said so."""
    ledger = EventLedger(capacity=capacity, page_size=page_size)
    cursor = ledger.query(None).latest_sequence
    received: list[int] = []
    appended = 0
    missed_flagged = False
    for burst in bursts:
        for _ in range(burst):
            ledger.append(event(appended))
            appended += 1
        assert ledger.latest_sequence == appended
        while True:
            page = ledger.query(cursor)
            assert page.latest_sequence >= cursor
            assert len(page.records) <= page_size
            if not page.records:
                assert page.latest_sequence == appended
                break
            if page.truncated:
                assert page.records[0].sequence > cursor + 1
                missed_flagged = True
            else:
                assert page.records[0].sequence == cursor + 1
            assert sequences(page) == list(
                range(page.records[0].sequence, page.records[-1].sequence + 1)
            )
            received.extend(sequences(page))
            cursor = page.latest_sequence
    assert received == sorted(set(received))
    assert received[-1:] == ([appended] if appended else [])
    assert (len(received) < appended) == missed_flagged
