"""Prune selection (semantics §1.8): which runs are old enough to forget, with their items."""

from __future__ import annotations

from mytty.core.attention.items import AttentionBook
from mytty.core.events import AgentEvent, AgentEventKind
from mytty.core.runs.book import RunBook
from mytty.core.runs.prune import prunable_runs, prune_runs
from tests.core.builders import DAY, R, U, ev

K = AgentEventKind


def _observed(book: RunBook, attention: AttentionBook, event: AgentEvent) -> None:
    attention.observe(event, book.apply(event))


def test_prunable_runs_rules() -> None:
    book, attention = RunBook(), AttentionBook()
    old, recent, active, flagged, acked = (
        R(n) for n in ("old", "recent", "active", "flagged", "acked")
    )
    # One pane per run: a run starting on a pane would resolve the pane's failure items.
    for run in (old, flagged, acked):
        _observed(book, attention, ev(K.STARTED, run=run, pane=run, at=0.0))
        _observed(book, attention, ev(K.FAILED, run=run, pane=run, at=1.0, eid=U(f"fail-{run}")))
    _observed(book, attention, ev(K.STARTED, run=recent, pane=recent, at=DAY - 10.0))
    _observed(book, attention, ev(K.SUCCEEDED, run=recent, pane=recent, at=DAY))  # no item
    _observed(book, attention, ev(K.STARTED, run=active, pane=active, at=0.0))
    _observed(book, attention, ev(K.STARTED, run=U("unknown-run"), pane=U("p3"), at=0.0, schema=2))
    book.apply(ev(K.SUCCEEDED, run=U("never-started"), at=0.0))
    assert attention.acknowledge(U(f"fail-{old}"), 2.0)
    assert attention.acknowledge(U(f"fail-{acked}"), DAY)  # anchor still within retention

    now = DAY + 10.0
    assert prunable_runs(book, attention, now) == [old]
    assert prunable_runs(book, attention, 2 * DAY + 10.0) == [old, acked, recent]
    assert prunable_runs(book, attention, now, retention=5.0) == [old, acked, recent]

    pruned = prune_runs(book, attention, now)
    assert list(pruned) == [old] and len(pruned[old]) == 2
    assert book.get(old) is None and attention.get(U(f"fail-{old}")) is None
    assert not book.seen(pruned[old][0])
    assert book.get(flagged) is not None
