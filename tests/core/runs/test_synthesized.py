"""The synthesized events: runSuperseded (§1.6) and the startup sweep (§1.7)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.attention.items import AttentionBook
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState
from mytty.core.ids import RunId, stable_uuid
from mytty.core.runs.book import RunBook
from mytty.core.runs.synthesized import (
    STARTUP_SWEEP_HOOK_NAME,
    SUPERSEDED_HOOK_NAME,
    startup_sweep_events,
    superseded_events,
)
from tests.core.builders import CLAUDE, CODEX, PANE, RUN, R, U, ev
from tests.core.runs.support import (
    RUN_POOL,
    book_in,
    check_invariants,
    events_strategy,
    set_state,
)

S = AgentRunState
K = AgentEventKind


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
        set_state(book, U(name), state, at=10.0)
    book.apply(ev(K.STARTED, run=U("input"), session="sess-input"))  # adopts a session id
    set_state(book, U("codex"), S.RUNNING, at=10.0, provider=CODEX)
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
    set_state(book, U("codex-run"), S.RUNNING, at=5.0, provider=CODEX)
    assert superseded_events(book, started) == []


def test_superseded_skips_a_retried_or_conflicting_started() -> None:
    book = book_in(S.RUNNING)
    retried = ev(K.STARTED, run=U("new"))
    assert len(superseded_events(book, retried)) == 1
    book.apply(retried)
    set_state(book, U("third"), S.RUNNING, at=50.0)
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
        set_state(book, U(str(state)), state, at=10.0)
    set_state(book, U("alive"), S.RUNNING, at=10.0, provider=CODEX)
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


# --- generated logs ---------------------------------------------------------------------------


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
