"""The reducer (RunBook.apply), the book's listings, the most relevant run, and its contract on
generated logs."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, AgentRunState
from mytty.core.runs.book import RunBook, replay
from mytty.core.runs.run import AgentRun
from mytty.core.runs.table import transition
from tests.core.builders import CLAUDE, CODEX, PANE, RUN, P, R, U, ev
from tests.core.runs.support import (
    ALL_PAIRS,
    EXPECTED,
    PANE_POOL,
    book_in,
    check_invariants,
    events_strategy,
    set_state,
)

S = AgentRunState
K = AgentEventKind


# --- every (state, kind) pair ------------------------------------------------------------------


@pytest.mark.parametrize(("state", "kind"), ALL_PAIRS)
def test_apply_every_pair(state: AgentRunState, kind: AgentEventKind) -> None:
    book = book_in(state)
    before = book.get(RUN)
    assert before is not None
    result = book.apply(ev(kind, at=100.0, message="new"))
    expected = EXPECTED[state].get(kind)
    after = book.get(RUN)
    assert not result.duplicate and not result.conflict
    assert result.previous_state == state
    assert result.run == after
    if expected is None:
        assert not result.applied
        assert after == before  # ignored: updatedAt, message and count untouched
    else:
        assert result.applied
        assert after is not None
        assert after.state == expected
        assert after.updated_at == 100.0
        assert after.message == "new"
        assert after.accepted_event_count == before.accepted_event_count + 1
        restarts = state in (S.UNKNOWN, S.IDLE) and expected == S.RUNNING
        assert after.started_at == (100.0 if restarts else before.started_at)


# --- reducer details --------------------------------------------------------------------------


def test_first_event_creates_run_with_previous_state_none() -> None:
    book = RunBook()
    result = book.apply(ev(K.STARTED, at=5.0, session="s1", message="go"))
    assert result.applied and result.previous_state is None
    assert result.run == AgentRun(
        id=RUN,
        surface_id=PANE,
        provider=CLAUDE,
        session_id="s1",
        state=S.RUNNING,
        started_at=5.0,
        updated_at=5.0,
        message="go",
        accepted_event_count=1,
    )


def test_ignored_first_event_still_stores_an_unknown_run() -> None:
    book = RunBook()
    result = book.apply(ev(K.SUCCEEDED, at=5.0))
    assert not result.applied and result.previous_state is None
    run = book.get(RUN)
    assert run is not None and run.state == S.UNKNOWN
    assert run.updated_at is None and run.accepted_event_count == 0
    assert book.runs_for_surface(PANE) == [run]


def test_duplicate_id_is_reported_and_changes_nothing() -> None:
    book = RunBook()
    first = ev(K.STARTED, at=1.0)
    book.apply(first)
    snapshot = book.all_runs()
    result = book.apply(ev(K.SUCCEEDED, at=2.0, eid=first.id))
    assert result.duplicate and not result.applied and result.run is None
    assert book.all_runs() == snapshot
    assert book.seen(first.id)


def test_wrong_schema_version_consumes_the_id() -> None:
    book = RunBook()
    bad = ev(K.STARTED, schema=2)
    result = book.apply(bad)
    assert result.rejected and result.run is None and not result.duplicate
    assert book.get(RUN) is None
    retry = book.apply(ev(K.STARTED, eid=bad.id))
    assert retry.duplicate
    assert book.get(RUN) is None


@pytest.mark.parametrize(
    "changes",
    [{"pane": U("other-pane")}, {"provider": CODEX}, {"session": "s2"}],
    ids=["surface", "provider", "session"],
)
def test_conflicting_event_is_dropped(changes: dict[str, object]) -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, at=1.0, session="s1"))
    before = book.get(RUN)
    conflicting = ev(K.SUCCEEDED, at=2.0, **changes)  # type: ignore[arg-type]
    result = book.apply(conflicting)
    assert result.conflict and not result.applied and not result.duplicate
    assert result.previous_state == S.RUNNING and result.run == before
    assert book.get(RUN) == before
    assert book.seen(conflicting.id)
    assert book.runs_for_surface(P("other-pane")) == []


def test_missing_session_on_either_side_is_not_a_conflict() -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, at=1.0, session="s1"))
    result = book.apply(ev(K.SUCCEEDED, at=2.0, session=None))
    assert result.applied and not result.conflict
    run = book.get(RUN)
    assert run is not None and run.session_id == "s1"


def test_session_is_adopted_even_when_the_transition_is_ignored() -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, at=1.0))
    result = book.apply(ev(K.STARTED, at=2.0, session="s9"))  # started on running: no-op
    assert not result.applied
    run = book.get(RUN)
    assert run is not None
    assert run.session_id == "s9" and run.updated_at == 1.0 and run.accepted_event_count == 1
    assert book.apply(ev(K.RUNNING, session="other")).conflict


def test_message_is_overwritten_even_with_none() -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, message="hello"))
    book.apply(ev(K.APPROVAL_REQUESTED, message=None))
    run = book.get(RUN)
    assert run is not None and run.message is None


def test_restart_after_idle_gets_a_new_started_at() -> None:
    book = RunBook()
    for kind, at in [(K.STARTED, 1.0), (K.SUCCEEDED, 2.0), (K.IDLE, 3.0), (K.STARTED, 4.0)]:
        book.apply(ev(kind, at=at))
    run = book.get(RUN)
    assert run is not None and run.state == S.RUNNING and run.started_at == 4.0
    assert run.accepted_event_count == 4


def test_replay_uses_arrival_order_not_occurred_at() -> None:
    events = [ev(K.STARTED, at=50.0), ev(K.SUCCEEDED, at=10.0)]
    run = replay(events).get(RUN)
    assert run is not None and run.state == S.SUCCEEDED and run.updated_at == 10.0
    reversed_run = replay(reversed(events)).get(RUN)
    assert reversed_run is not None and reversed_run.state == S.RUNNING


def test_listings_follow_creation_order() -> None:
    book = RunBook()
    a, b, c = U("a"), U("b"), U("c")
    book.apply(ev(K.STARTED, run=b))
    book.apply(ev(K.STARTED, run=a, provider=CODEX))
    book.apply(ev(K.STARTED, run=c))
    book.apply(ev(K.STARTED, run=U("elsewhere"), pane=U("pane2")))
    assert [r.id for r in book.runs_for_surface(PANE)] == [b, a, c]
    assert [r.id for r in book.runs_for(PANE, CLAUDE)] == [b, c]
    assert [r.id for r in book.runs_for(PANE, CODEX)] == [a]
    assert book.runs_for_surface(P("nowhere")) == []
    assert len(book) == 4


def test_forget_run_forgets_its_event_ids() -> None:
    book = RunBook()
    started = ev(K.STARTED, at=1.0)
    finished = ev(K.SUCCEEDED, at=2.0)
    other = ev(K.STARTED, run=U("other"))
    for event in (started, finished, other):
        book.apply(event)
    assert book.event_ids_for_run(RUN) == [started.id, finished.id]
    book.forget_run(RUN, ["extra-id"])
    assert book.get(RUN) is None and book.runs_for_surface(PANE) == [book.get(R("other"))]
    assert not book.seen(started.id) and not book.seen(finished.id)
    assert book.seen(other.id)
    assert book.apply(started).applied  # re-delivery inserts again, as in the original


def test_forget_run_accepts_extra_event_ids() -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, eid=U("extra")))
    book.forget_run(R("no-such-run"), [U("extra")])
    assert not book.seen(U("extra"))


# --- most relevant run ------------------------------------------------------------------------


def test_most_relevant_none_without_runs() -> None:
    assert RunBook().most_relevant(PANE) is None


def test_active_beats_newer_inactive_across_providers() -> None:
    book = RunBook()
    set_state(book, U("old-running"), S.RUNNING, at=10.0, provider=CODEX)
    set_state(book, U("new-failed"), S.FAILED, at=99.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("old-running")


def test_among_active_priority_beats_recency() -> None:
    book = RunBook()
    set_state(book, U("approval"), S.WAITING_APPROVAL, at=10.0)
    set_state(book, U("input"), S.WAITING_INPUT, at=20.0)
    set_state(book, U("running"), S.RUNNING, at=30.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("approval")


def test_among_active_same_priority_later_update_wins() -> None:
    book = RunBook()
    set_state(book, U("a"), S.RUNNING, at=30.0)
    set_state(book, U("b"), S.RUNNING, at=20.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("a")


def test_among_inactive_recency_beats_priority() -> None:
    book = RunBook()
    set_state(book, U("failed"), S.FAILED, at=10.0)
    set_state(book, U("succeeded"), S.SUCCEEDED, at=20.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("succeeded")


def test_among_inactive_same_time_priority_decides() -> None:
    book = RunBook()
    set_state(book, U("idle"), S.IDLE, at=20.0)
    set_state(book, U("disconnected"), S.DISCONNECTED, at=20.0)
    set_state(book, U("succeeded"), S.SUCCEEDED, at=20.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("disconnected")


def test_unknown_run_counts_as_distant_past() -> None:
    book = RunBook()
    set_state(book, U("unknown"), S.UNKNOWN, at=0.0)
    set_state(book, U("idle"), S.IDLE, at=-1000.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("idle")


def test_full_ties_are_broken_by_run_id() -> None:
    ids = sorted([U("x"), U("y"), U("z")])
    for order in itertools.permutations(ids):
        book = RunBook()
        for run in order:
            set_state(book, run, S.SUCCEEDED, at=5.0)
        relevant = book.most_relevant(PANE)
        assert relevant is not None and relevant.id == ids[-1]


def test_latest_run_is_per_provider_by_updated_at() -> None:
    book = RunBook()
    set_state(book, U("c1"), S.RUNNING, at=10.0)
    set_state(book, U("c2"), S.SUCCEEDED, at=20.0)
    set_state(book, U("x1"), S.SUCCEEDED, at=30.0, provider=CODEX)
    latest = book.latest_run(PANE, CLAUDE)
    assert latest is not None and latest.id == U("c2")
    assert book.latest_run(PANE, AgentProvider.CURSOR) is None


# --- generated logs ---------------------------------------------------------------------------


@settings(max_examples=300)
@given(events_strategy)
def test_reducer_contract_on_random_sequences(events: Sequence[AgentEvent]) -> None:
    book = RunBook()
    seen: set[str] = set()
    for event in events:
        before = book.get(event.run_id)
        result = book.apply(event)
        if event.id in seen:
            assert result.duplicate and result.run is None
            assert book.get(event.run_id) == before
            continue
        seen.add(event.id)
        assert book.seen(event.id)
        if event.schema_version != 1:
            assert result.rejected and book.get(event.run_id) == before
            continue
        assert result.previous_state == (before.state if before else None)
        if before is not None and (
            before.surface_id != event.surface_id
            or before.provider != event.provider
            or (before.session_id and event.session_id and before.session_id != event.session_id)
        ):
            assert result.conflict and book.get(event.run_id) == before
            continue
        expected = transition(before.state if before else S.UNKNOWN, event.kind)
        assert result.applied == (expected is not None)
        after = book.get(event.run_id)
        assert after is not None and result.run == after
        assert after.state == (
            expected if expected is not None else (before.state if before else S.UNKNOWN)
        )
        if before is not None and before.session_id is not None:
            assert after.session_id == before.session_id
        elif event.session_id is not None:
            assert after.session_id == event.session_id
    check_invariants(book)


@given(events_strategy)
def test_replay_is_deterministic_and_idempotent(events: list[AgentEvent]) -> None:
    once = replay(events)
    assert replay(events).all_runs() == once.all_runs()
    twice = replay(events + events)
    assert twice.all_runs() == once.all_runs()
    for pane in PANE_POOL:
        assert twice.most_relevant(pane) == once.most_relevant(pane)


@given(events_strategy)
def test_the_remembered_most_relevant_run_is_always_the_scanned_one(
    events: list[AgentEvent],
) -> None:
    """most_relevant remembers its answer per pane; asked after every event (and after
    forgetting runs), it is what a fresh scan of the pane's runs gives."""
    from mytty.core.runs.book import _relevance

    def scanned(book: RunBook, pane: str) -> AgentRun | None:
        runs = book.runs_for_surface(pane)  # type: ignore[arg-type]
        return max(runs, key=_relevance) if runs else None

    book = RunBook(max_runs_per_pane=3)  # small, so overflow drops runs too
    for event in events:
        book.apply(event)
        for pane in PANE_POOL:
            assert book.most_relevant(pane) == scanned(book, pane)
    for run in book.all_runs()[::2]:
        book.forget_run(run.id)
        for pane in PANE_POOL:
            assert book.most_relevant(pane) == scanned(book, pane)


def test_a_run_keeps_the_last_answer_its_turn_end_reported() -> None:
    book = RunBook()
    book.apply(ev(K.STARTED, at=1.0))
    assert book.get(RUN).last_assistant_message is None  # type: ignore[union-attr]
    book.apply(replace(ev(K.SUCCEEDED, at=2.0), last_assistant_message="All done."))
    assert book.get(RUN).last_assistant_message == "All done."  # type: ignore[union-attr]
    book.apply(ev(K.IDLE, at=3.0))  # a later event without an answer keeps it
    assert book.get(RUN).last_assistant_message == "All done."  # type: ignore[union-attr]
    # An ignored event's answer is not taken (failed from idle is no transition).
    book.apply(replace(ev(K.FAILED, at=4.0), last_assistant_message="late"))
    assert book.get(RUN).last_assistant_message == "All done."  # type: ignore[union-attr]
