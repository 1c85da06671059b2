"""The per-pane run bound (issue 15 #6): a flood of runs from one pane keeps the newest."""

from __future__ import annotations

from mytty.core.events import AgentEventKind, AgentRunState
from tests.core.builders import CODEX, P, R, ev
from tests.core.runs.support import Books

K = AgentEventKind


def test_a_pane_keeps_at_most_the_bound_and_drops_the_oldest_finished_first() -> None:
    books = Books(bound=5)
    pane = P("flood")
    active = R("active-0")
    books.feed([ev(K.STARTED, run=active, pane=pane, provider=CODEX, at=0.0)])
    for i in range(50):
        run = R(f"done-{i}")
        books.feed(
            [
                ev(K.STARTED, run=run, pane=pane, provider=CODEX, at=i + 1.0),
                ev(K.FAILED, run=run, pane=pane, provider=CODEX, at=i + 1.0),
            ]
        )
    kept = books.runs.runs_for_surface(pane)
    assert len(kept) == 5
    assert kept[0].id == active and kept[0].state is AgentRunState.RUNNING  # active stays
    assert [r.id for r in kept[1:]] == [R(f"done-{i}") for i in range(46, 50)]
    # Their failure items went with the dropped runs.
    assert {i.run_id for i in books.attention.all_items()} == {r.id for r in kept[1:]}
    # Another pane is not touched.
    other = P("other")
    books.feed([ev(K.STARTED, run=R("other"), pane=other, provider=CODEX, at=99.0)])
    assert len(books.runs.runs_for_surface(other)) == 1
    assert len(books.runs.runs_for_surface(pane)) == 5


def test_when_every_run_is_active_the_oldest_goes() -> None:
    books = Books(bound=3)
    pane = P("busy")
    books.feed([ev(K.STARTED, run=R(f"r{i}"), pane=pane, provider=CODEX, at=i) for i in range(4)])
    assert [r.id for r in books.runs.runs_for_surface(pane)] == [R("r1"), R("r2"), R("r3")]
