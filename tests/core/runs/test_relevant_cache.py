"""most_relevant's cached answer, kept in step as runs change, agrees with a fresh scan."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.events import AgentEvent, AgentEventKind
from mytty.core.ids import RunId, SurfaceId
from mytty.core.runs.book import RunBook
from mytty.core.runs.run import AgentRun
from tests.core.builders import CODEX, PANE, R, ev
from tests.core.runs.support import PANE_POOL, RUN_POOL, events_strategy

K = AgentEventKind


def scanned(book: RunBook, pane: SurfaceId) -> AgentRun | None:
    """The answer of a book that never cached anything: the same runs, restored afresh."""
    fresh = RunBook()
    for run in book.runs_for_surface(pane):
        fresh.restore(run)
    return fresh.most_relevant(pane)


def test_the_other_active_run_speaks_once_the_cached_one_finishes() -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, run=R("a"), at=10.0))
    book.apply(ev(K.STARTED, run=R("b"), provider=CODEX, at=8.0))
    before = book.most_relevant(PANE)
    assert before is not None and before.id == R("a")
    book.apply(ev(K.SUCCEEDED, run=R("a"), at=11.0))
    after = book.most_relevant(PANE)
    assert after is not None and after.id == R("b")  # any active run beats every inactive one
    assert after == scanned(book, PANE)


@settings(max_examples=300, deadline=None)
@given(
    events=events_strategy,
    bound=st.integers(1, 4),
    forget=st.lists(st.tuples(st.integers(0, 59), st.sampled_from(RUN_POOL)), max_size=3),
)
def test_the_cached_answer_is_what_a_scan_finds_after_every_event(
    events: list[AgentEvent], bound: int, forget: list[tuple[int, RunId]]
) -> None:
    book = RunBook(max_runs_per_pane=bound)
    forgets = dict(forget)
    for step, event in enumerate(events):
        for pane in PANE_POOL:  # asked before each event, so the cache is warm when it changes
            book.most_relevant(pane)
        book.apply(event)
        if step in forgets:
            book.forget_run(forgets[step])
        for pane in PANE_POOL:
            assert book.most_relevant(pane) == scanned(book, pane)
