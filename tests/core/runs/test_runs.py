"""The run reducer, most-relevant run, runSuperseded, startup sweep and prune selection."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.attention.items import AttentionBook
from mytty.core.events import (
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    AgentRunState,
)
from mytty.core.ids import RunId, stable_uuid
from mytty.core.runs.book import RunBook, replay
from mytty.core.runs.prune import prunable_runs, prune_runs
from mytty.core.runs.run import AgentRun
from mytty.core.runs.synthesized import (
    STARTUP_SWEEP_HOOK_NAME,
    SUPERSEDED_HOOK_NAME,
    startup_sweep_events,
    superseded_events,
)
from mytty.core.runs.table import TRANSITIONS, transition
from tests.core.builders import CLAUDE, CODEX, DAY, PANE, RUN, P, R, U, ev

S = AgentRunState
K = AgentEventKind


# Written out independently of the implementation: semantics §1.3 row by row.
EXPECTED: dict[AgentRunState, dict[AgentEventKind, AgentRunState]] = {
    S.UNKNOWN: {
        K.IDLE: S.IDLE,
        K.STARTED: S.RUNNING,
        K.RUNNING: S.RUNNING,
        K.DISCONNECTED: S.DISCONNECTED,
    },
    S.IDLE: {
        K.IDLE: S.IDLE,
        K.STARTED: S.RUNNING,
        K.RUNNING: S.RUNNING,
        K.DISCONNECTED: S.DISCONNECTED,
    },
    S.RUNNING: {
        K.IDLE: S.IDLE,
        K.INPUT_REQUESTED: S.WAITING_INPUT,
        K.APPROVAL_REQUESTED: S.WAITING_APPROVAL,
        K.SUCCEEDED: S.SUCCEEDED,
        K.FAILED: S.FAILED,
        K.DISCONNECTED: S.DISCONNECTED,
    },
    S.WAITING_INPUT: {K.IDLE: S.IDLE, K.RUNNING: S.RUNNING, K.DISCONNECTED: S.DISCONNECTED},
    S.WAITING_APPROVAL: {K.IDLE: S.IDLE, K.RUNNING: S.RUNNING, K.DISCONNECTED: S.DISCONNECTED},
    S.SUCCEEDED: {K.IDLE: S.IDLE, K.DISCONNECTED: S.DISCONNECTED},
    S.FAILED: {K.IDLE: S.IDLE, K.DISCONNECTED: S.DISCONNECTED},
    S.DISCONNECTED: {K.IDLE: S.IDLE},
}

# Event kinds that bring a fresh run into each state (the first one for UNKNOWN is ignored).
PATHS: dict[AgentRunState, list[AgentEventKind]] = {
    S.UNKNOWN: [K.SUCCEEDED],
    S.IDLE: [K.IDLE],
    S.RUNNING: [K.STARTED],
    S.WAITING_INPUT: [K.STARTED, K.INPUT_REQUESTED],
    S.WAITING_APPROVAL: [K.STARTED, K.APPROVAL_REQUESTED],
    S.SUCCEEDED: [K.STARTED, K.SUCCEEDED],
    S.FAILED: [K.STARTED, K.FAILED],
    S.DISCONNECTED: [K.DISCONNECTED],
}

ALL_PAIRS = list(itertools.product(AgentRunState, AgentEventKind))


def book_in(
    state: AgentRunState,
    *,
    run: str = RUN,
    pane: str = PANE,
    provider: AgentProvider = CLAUDE,
    at: float = 10.0,
    book: RunBook | None = None,
) -> RunBook:
    book = book if book is not None else RunBook()
    for i, kind in enumerate(PATHS[state]):
        book.apply(ev(kind, run=run, pane=pane, provider=provider, at=at + i, message="prep"))
    got = book.get(RunId(run))
    assert got is not None and got.state == state
    return book


# --- the transition table -------------------------------------------------------------------


@pytest.mark.parametrize(("state", "kind"), ALL_PAIRS)
def test_transition_table(state: AgentRunState, kind: AgentEventKind) -> None:
    assert transition(state, kind) == EXPECTED[state].get(kind)


def test_table_has_exactly_the_listed_pairs() -> None:
    expected_pairs = {(s, k) for s, row in EXPECTED.items() for k in row}
    assert set(TRANSITIONS) == expected_pairs


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


def _set_state(
    book: RunBook, run: str, state: AgentRunState, at: float, provider: AgentProvider = CLAUDE
) -> None:
    book_in(state, run=run, provider=provider, at=at - len(PATHS[state]) + 1, book=book)
    got = book.get(RunId(run))
    assert got is not None
    if state != S.UNKNOWN:
        assert got.updated_at == at


def test_most_relevant_none_without_runs() -> None:
    assert RunBook().most_relevant(PANE) is None


def test_active_beats_newer_inactive_across_providers() -> None:
    book = RunBook()
    _set_state(book, U("old-running"), S.RUNNING, at=10.0, provider=CODEX)
    _set_state(book, U("new-failed"), S.FAILED, at=99.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("old-running")


def test_among_active_priority_beats_recency() -> None:
    book = RunBook()
    _set_state(book, U("approval"), S.WAITING_APPROVAL, at=10.0)
    _set_state(book, U("input"), S.WAITING_INPUT, at=20.0)
    _set_state(book, U("running"), S.RUNNING, at=30.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("approval")


def test_among_active_same_priority_later_update_wins() -> None:
    book = RunBook()
    _set_state(book, U("a"), S.RUNNING, at=30.0)
    _set_state(book, U("b"), S.RUNNING, at=20.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("a")


def test_among_inactive_recency_beats_priority() -> None:
    book = RunBook()
    _set_state(book, U("failed"), S.FAILED, at=10.0)
    _set_state(book, U("succeeded"), S.SUCCEEDED, at=20.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("succeeded")


def test_among_inactive_same_time_priority_decides() -> None:
    book = RunBook()
    _set_state(book, U("idle"), S.IDLE, at=20.0)
    _set_state(book, U("disconnected"), S.DISCONNECTED, at=20.0)
    _set_state(book, U("succeeded"), S.SUCCEEDED, at=20.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("disconnected")


def test_unknown_run_counts_as_distant_past() -> None:
    book = RunBook()
    _set_state(book, U("unknown"), S.UNKNOWN, at=0.0)
    _set_state(book, U("idle"), S.IDLE, at=-1000.0)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.id == U("idle")


def test_full_ties_are_broken_by_run_id() -> None:
    ids = sorted([U("x"), U("y"), U("z")])
    for order in itertools.permutations(ids):
        book = RunBook()
        for run in order:
            _set_state(book, run, S.SUCCEEDED, at=5.0)
        relevant = book.most_relevant(PANE)
        assert relevant is not None and relevant.id == ids[-1]


def test_latest_run_is_per_provider_by_updated_at() -> None:
    book = RunBook()
    _set_state(book, U("c1"), S.RUNNING, at=10.0)
    _set_state(book, U("c2"), S.SUCCEEDED, at=20.0)
    _set_state(book, U("x1"), S.SUCCEEDED, at=30.0, provider=CODEX)
    latest = book.latest_run(PANE, CLAUDE)
    assert latest is not None and latest.id == U("c2")
    assert book.latest_run(PANE, AgentProvider.CURSOR) is None


# --- runSuperseded ----------------------------------------------------------------------------


def test_claude_started_supersedes_other_active_runs_on_the_pane() -> None:
    book = RunBook()
    for name, state in [
        ("running", S.RUNNING),
        ("input", S.WAITING_INPUT),
        ("approval", S.WAITING_APPROVAL),
        ("done", S.SUCCEEDED),
        ("idle", S.IDLE),
    ]:
        _set_state(book, U(name), state, at=10.0)
    book.apply(ev(K.STARTED, run=U("input"), session="sess-input"))  # adopts a session id
    _set_state(book, U("codex"), S.RUNNING, at=10.0, provider=CODEX)
    book_in(S.RUNNING, run=U("other-pane"), pane=U("pane2"), book=book)

    new = U("new")
    started = ev(K.STARTED, run=new, at=77.0, hook="UserPromptSubmit")
    sweep = superseded_events(book, started)

    old_ids = [U("running"), U("input"), U("approval")]
    assert [e.run_id for e in sweep] == old_ids
    for event in sweep:
        old = book.get(event.run_id)
        assert old is not None
        assert event.id == stable_uuid("event", "superseded", event.run_id, new)
        assert event.kind == K.IDLE and event.occurred_at == 77.0
        assert event.surface_id == PANE and event.provider == CLAUDE
        assert event.session_id == old.session_id
        assert event.hook_name == SUPERSEDED_HOOK_NAME and event.synthesized
    assert sweep[1].session_id == "sess-input"

    for event in [*sweep, started]:
        assert book.apply(event).applied
    active = [r.id for r in book.runs_for(PANE, CLAUDE) if r.is_active]
    assert active == [new]
    assert superseded_events(book, ev(K.STARTED, run=U("newer"), at=80.0)) == [
        ev(
            K.IDLE,
            run=new,
            at=80.0,
            eid=stable_uuid("event", "superseded", new, U("newer")),
            hook=SUPERSEDED_HOOK_NAME,
        )
    ]


@pytest.mark.parametrize(
    "started",
    [
        ev(K.STARTED, run=U("new"), hook="mytty.native.turnStarted"),
        ev(K.STARTED, run=U("new"), provider=CODEX),
        ev(K.RUNNING, run=U("new")),
        ev(K.STARTED, run=RUN),  # the same run is never superseded by itself
        ev(K.STARTED, run=U("new"), schema=2),
    ],
    ids=["synthesized", "codex", "not-started", "same-run", "bad-schema"],
)
def test_superseded_does_not_apply(started: AgentEvent) -> None:
    book = book_in(S.RUNNING)
    _set_state(book, U("codex-run"), S.RUNNING, at=5.0, provider=CODEX)
    assert superseded_events(book, started) == []


def test_superseded_skips_a_retried_or_conflicting_started() -> None:
    book = book_in(S.RUNNING)
    retried = ev(K.STARTED, run=U("new"))
    assert len(superseded_events(book, retried)) == 1
    book.apply(retried)
    _set_state(book, U("third"), S.RUNNING, at=50.0)
    assert superseded_events(book, retried) == []  # a duplicate must not close newer runs
    conflicting = ev(K.STARTED, run=U("new"), session="s1")
    book.apply(ev(K.IDLE, run=U("new"), session="s0"))
    assert superseded_events(book, conflicting) == []


# --- startup sweep ----------------------------------------------------------------------------


def test_startup_sweep_disconnects_dead_active_runs_only() -> None:
    book = RunBook()
    states = [
        S.UNKNOWN,
        S.IDLE,
        S.RUNNING,
        S.WAITING_INPUT,
        S.WAITING_APPROVAL,
        S.SUCCEEDED,
        S.FAILED,
        S.DISCONNECTED,
    ]
    for state in states:
        _set_state(book, U(str(state)), state, at=10.0)
    _set_state(book, U("alive"), S.RUNNING, at=10.0, provider=CODEX)
    book.apply(ev(K.RUNNING, run=U("running"), session="sess"))

    sweep = startup_sweep_events(book, 500.0, lambda run: run.id != U("alive"))
    assert [e.run_id for e in sweep] == [U("running"), U("waiting-input"), U("waiting-approval")]
    for event in sweep:
        old = book.get(event.run_id)
        assert old is not None
        assert event.id == stable_uuid("event", "startup-sweep", event.run_id)
        assert event.kind == K.DISCONNECTED and event.occurred_at == 500.0
        assert (event.surface_id, event.provider, event.session_id) == (
            old.surface_id,
            old.provider,
            old.session_id,
        )
        assert event.hook_name == STARTUP_SWEEP_HOOK_NAME
    assert sweep[0].session_id == "sess"

    for event in sweep:
        assert book.apply(event).applied
    # Only the run that was alive last time is left to sweep.
    assert startup_sweep_events(book, 600.0, lambda run: True) == sweep_for(book, R("alive"), 600.0)


def sweep_for(book: RunBook, run_id: RunId, now: float) -> list[AgentEvent]:
    run = book.get(run_id)
    assert run is not None
    return [
        AgentEvent(
            id=stable_uuid("event", "startup-sweep", run_id),
            run_id=run_id,
            surface_id=run.surface_id,
            provider=run.provider,
            kind=K.DISCONNECTED,
            occurred_at=now,
            session_id=run.session_id,
            hook_name=STARTUP_SWEEP_HOOK_NAME,
        )
    ]


def test_startup_sweep_is_idempotent() -> None:
    book = book_in(S.WAITING_APPROVAL)
    first = startup_sweep_events(book, 100.0, lambda run: True)
    assert len(first) == 1
    for event in first:
        book.apply(event)
    assert startup_sweep_events(book, 200.0, lambda run: True) == []
    # A run restarted after being swept cannot be swept again (same deterministic id).
    book.apply(ev(K.IDLE, at=300.0))
    book.apply(ev(K.STARTED, at=301.0))
    assert startup_sweep_events(book, 400.0, lambda run: True) == []


# --- prune selection --------------------------------------------------------------------------


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


# --- properties -------------------------------------------------------------------------------

RUN_POOL = [R(f"prop-run-{i}") for i in range(4)]
PANE_POOL = [P(f"prop-pane-{i}") for i in range(2)]
ID_POOL = [U(f"prop-event-{i}") for i in range(40)]
PROVIDERS = [CLAUDE, CODEX, AgentProvider.CURSOR]

event_strategy = st.builds(
    AgentEvent,
    id=st.sampled_from(ID_POOL),
    run_id=st.sampled_from(RUN_POOL),
    surface_id=st.sampled_from(PANE_POOL),
    provider=st.sampled_from(PROVIDERS),
    kind=st.sampled_from(list(AgentEventKind)),
    occurred_at=st.integers(0, 1000).map(float),
    session_id=st.sampled_from([None, None, "s1", "s2"]),
    message=st.sampled_from([None, "m"]),
    hook_name=st.sampled_from([None, "UserPromptSubmit", "mytty.native.turnStarted"]),
    schema_version=st.sampled_from([1, 1, 1, 1, 2]),
)
events_strategy = st.lists(event_strategy, max_size=60)


def check_invariants(book: RunBook) -> None:
    for run in book.all_runs():
        never_applied = run.accepted_event_count == 0
        assert (run.state == S.UNKNOWN) == never_applied == (run.updated_at is None)
        if run.is_active:
            assert run.started_at is not None
        assert run in book.runs_for_surface(run.surface_id)
        assert run in book.runs_for(run.surface_id, run.provider)
    for pane in PANE_POOL:
        runs = book.runs_for_surface(pane)
        relevant = book.most_relevant(pane)
        if not runs:
            assert relevant is None
            continue
        assert relevant in runs
        if any(run.is_active for run in runs):
            assert relevant is not None and relevant.is_active


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


def run_pipeline(events: Sequence[AgentEvent]) -> tuple[RunBook, AttentionBook]:
    """What the daemon does per received event: supersede first, then the event itself."""
    book, attention = RunBook(), AttentionBook()
    for event in events:
        for closing in superseded_events(book, event):
            result = book.apply(closing)
            assert result.applied and not result.duplicate
            attention.observe(closing, result)
        attention.observe(event, book.apply(event))
    return book, attention


@settings(max_examples=200)
@given(events_strategy, st.sets(st.sampled_from(RUN_POOL)))
def test_pipeline_with_sweep_never_crashes_and_sweep_is_idempotent(
    events: list[AgentEvent], alive: set[str]
) -> None:
    book, attention = run_pipeline(events)
    check_invariants(book)
    sweep = startup_sweep_events(book, 2000.0, lambda run: run.id not in alive)
    for event in sweep:
        result = book.apply(event)
        assert result.applied
        attention.observe(event, result)
    assert startup_sweep_events(book, 3000.0, lambda run: run.id not in alive) == []
    assert all(run.id in alive for run in book.all_runs() if run.is_active)
    again_book, again_attention = run_pipeline(events)
    assert again_book.all_runs() == run_pipeline(events + events)[0].all_runs()
    assert again_attention.items(0.0) == run_pipeline(events + events)[1].items(0.0)


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
