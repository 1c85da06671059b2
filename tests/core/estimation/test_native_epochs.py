"""The native epoch and turn machines (semantics §9.2–9.6), driven with time as an input."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.estimation import epochs as ne
from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import SurfaceId, stable_uuid
from mytty.core.runs.book import RunBook

S = SurfaceId("0F0F0F0F-1111-4222-8333-444455556666")
CLAUDE = AgentProvider.CLAUDE_CODE
CODEX = AgentProvider.CODEX
T0 = 1_000.0


def key(pid: int = 41, n: int = 0, provider: AgentProvider = CLAUDE) -> str:
    return f"{S}\0{provider.value}\0{pid}\0{n}"


def brief(events: list[AgentEvent]) -> list[tuple[str, str | None]]:
    return [(e.kind.value, e.hook_name) for e in events]


def started(m: ne.NativeEpochs, pid: int = 41, provider: AgentProvider = CLAUDE) -> None:
    assert m.provider_changed(S, provider, pid, T0) == []
    assert brief(m.fire_due(T0 + 3)) == [("started", ne.LAUNCH_OBSERVED)]


# -- epochs ------------------------------------------------------------------------------------


def test_the_start_waits_out_the_grace() -> None:
    m = ne.NativeEpochs()
    assert m.provider_changed(S, CLAUDE, 41, T0) == []
    assert m.next_deadline() == T0 + 3
    assert m.fire_due(T0 + 2.99) == []
    [ev] = m.fire_due(T0 + 3.0)
    assert ev.id == stable_uuid("event", "native", "started", key())
    assert ev.run_id == stable_uuid("run", "native", key())
    assert (ev.kind, ev.occurred_at, ev.session_id, ev.surface_id) == (
        AgentEventKind.STARTED,
        T0 + 3.0,
        None,
        S,
    )
    assert ev.synthesized and ev.provider is CLAUDE
    assert m.fire_due(T0 + 10) == []  # once
    assert m.next_deadline() is None


@pytest.mark.parametrize(
    ("exit_status", "kind"),
    [(0, "succeeded"), (1, "failed"), (137, "failed"), (None, "disconnected")],
)
def test_a_finished_command_ends_a_started_epoch(exit_status: int | None, kind: str) -> None:
    m = ne.NativeEpochs()
    started(m)
    [ev] = m.command_finished(S, exit_status, T0 + 9)
    assert brief([ev]) == [(kind, ne.COMMAND_FINISHED)]
    assert ev.id == stable_uuid("event", "native", "command-finished", key())
    assert ev.run_id == stable_uuid("run", "native", key())
    assert m.epoch(S) is not None and m.epoch(S).phase is ne.EpochPhase.ENDED  # type: ignore[union-attr]
    # The process going away afterwards is silent, and so is a second D.
    assert m.command_finished(S, 0, T0 + 10) == []
    assert m.provider_changed(S, None, None, T0 + 10) == []


def test_an_exit_without_a_finish_is_disconnected() -> None:
    m = ne.NativeEpochs()
    started(m)
    [ev] = m.provider_changed(S, None, None, T0 + 5)
    assert brief([ev]) == [("disconnected", ne.PROCESS_EXITED)]
    assert ev.id == stable_uuid("event", "native", "process-exited", key())


def test_a_command_that_finishes_within_the_grace_is_dropped() -> None:
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0)
    assert m.command_finished(S, 0, T0 + 1) == []
    assert m.epoch(S) is None and m.fire_due(T0 + 5) == []
    # Still the same process as reported: no new epoch for it.
    assert m.provider_changed(S, CLAUDE, 41, T0 + 2) == []
    assert m.epoch(S) is None


def test_a_process_that_leaves_within_the_grace_reports_nothing() -> None:
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0)
    assert m.provider_changed(S, None, None, T0 + 1) == []
    assert m.fire_due(T0 + 5) == []


def test_unchanged_reports_do_nothing_and_a_new_process_is_a_new_epoch() -> None:
    m = ne.NativeEpochs()
    started(m)
    assert m.provider_changed(S, CLAUDE, 41, T0 + 4) == []
    # Another provider (a new process): the old epoch reports its exit, a new one opens.
    [ev] = m.provider_changed(S, CODEX, 42, T0 + 5)
    assert brief([ev]) == [("disconnected", ne.PROCESS_EXITED)]
    [start] = m.fire_due(T0 + 8)
    assert start.provider is CODEX and start.run_id == ne.epoch_run_id(key(42, 0, CODEX))


def test_the_counter_counts_epochs_of_one_process_until_it_is_forgotten() -> None:
    m = ne.NativeEpochs()
    started(m)
    m.provider_changed(S, None, None, T0 + 4)
    m.provider_changed(S, CLAUDE, 41, T0 + 5)  # the same pid is in front again
    [start] = m.fire_due(T0 + 8)
    assert start.run_id == ne.epoch_run_id(key(41, 1))
    m.provider_changed(S, None, None, T0 + 9)
    m.forget_process(S, 41)  # it ended: a reused pid starts over from 0
    m.provider_changed(S, CLAUDE, 41, T0 + 10)
    [start] = m.fire_due(T0 + 13)
    assert start.run_id == ne.epoch_run_id(key(41, 0))


def test_a_suppressed_provider_gets_no_epoch() -> None:
    m = ne.NativeEpochs()
    assert m.provider_changed(S, CLAUDE, 41, T0, suppressed=True) == []
    assert m.epoch(S) is None and m.fire_due(T0 + 9) == []
    assert m.command_finished(S, 0, T0 + 10) == []


@pytest.mark.parametrize("when", ["pending", "started"])
def test_hook_covered_epochs_go_silent(when: str) -> None:
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0)
    if when == "started":
        m.fire_due(T0 + 3)
    m.mark_hook_covered(S, CODEX)  # another provider's hooks cover nothing here
    assert m.epoch(S).covered is False  # type: ignore[union-attr]
    m.mark_hook_covered(S, CLAUDE)
    assert m.fire_due(T0 + 5) == []
    assert m.observe_turn(S, TurnObservation("p1", TurnPhase.ACTIVE), T0 + 6) == []
    assert m.command_finished(S, 0, T0 + 7) == []
    assert m.provider_changed(S, None, None, T0 + 8) == []


def test_restore_takes_over_a_started_epoch_silently() -> None:
    m = ne.NativeEpochs()
    epoch = m.restore_started(S, CLAUDE, 41)
    assert epoch.run_id == ne.epoch_run_id(key())
    assert m.provider_changed(S, CLAUDE, 41, T0) == []  # what the first pass sees again
    [ev] = m.command_finished(S, 0, T0 + 1)
    assert ev.run_id == epoch.run_id and ev.kind is AgentEventKind.SUCCEEDED


# -- turns ---------------------------------------------------------------------------------------


def obs(k: str, phase: str) -> TurnObservation:
    return TurnObservation(k, TurnPhase(phase))


def turn_id(what: str, turn: str) -> str:
    return stable_uuid("event", "native", f"turn-{what}", key(), turn)


def test_turns_split_a_started_epoch() -> None:
    m = ne.NativeEpochs()
    started(m)
    out = m.observe_turn(S, obs("p1", "active"), T0 + 4)
    assert brief(out) == [("idle", ne.TURN_HANDOFF), ("started", ne.TURN_STARTED)]
    handoff, start = out
    assert handoff.run_id == ne.epoch_run_id(key())
    assert handoff.id == stable_uuid("event", "native", "turn-handoff", key())
    assert start.run_id == stable_uuid("run", "claude-code", "p1")  # what the hooks use
    assert start.id == turn_id("started", "p1")
    assert m.observe_turn(S, obs("p1", "active"), T0 + 5) == []  # unchanged
    [done] = m.observe_turn(S, obs("p1", "completed"), T0 + 6)
    assert brief([done]) == [("succeeded", ne.TURN_COMPLETED)]
    assert done.id == turn_id("completed", "p1")
    # A new prompt, then a newer one while it runs: the first is superseded.
    assert brief(m.observe_turn(S, obs("p2", "active"), T0 + 7)) == [("started", ne.TURN_STARTED)]
    out = m.observe_turn(S, obs("p3", "active"), T0 + 8)
    assert brief(out) == [("idle", ne.TURN_SUPERSEDED), ("started", ne.TURN_STARTED)]
    assert out[0].run_id == ne.turn_run_id(CLAUDE, "p2")
    [stop] = m.observe_turn(S, obs("p3", "interrupted"), T0 + 9)
    assert brief([stop]) == [("idle", ne.TURN_INTERRUPTED)]
    # With no active turn the exit reports nothing.
    assert m.provider_changed(S, None, None, T0 + 10) == []


def test_a_completed_turn_carries_its_answer_to_the_run() -> None:
    m = ne.NativeEpochs()
    started(m)
    begun = m.observe_turn(S, obs("p1", "active"), T0 + 4)
    answer = TurnObservation("p1", TurnPhase.COMPLETED, answer="All three tests pass.")
    [done] = m.observe_turn(S, answer, T0 + 5)
    assert done.kind is AgentEventKind.SUCCEEDED and done.id == turn_id("completed", "p1")
    assert done.last_assistant_message == "All three tests pass."
    book = RunBook()
    for event in [*begun, done]:
        book.apply(event)
    run = book.get(done.run_id)
    assert run is not None and run.last_assistant_message == "All three tests pass."


def test_a_pending_epoch_switches_to_turns_without_an_epoch_start() -> None:
    m = ne.NativeEpochs()
    m.provider_changed(S, CODEX, 41, T0)
    out = m.observe_turn(S, obs("t1", "active"), T0 + 1)
    assert brief(out) == [("started", ne.TURN_STARTED)]
    assert m.fire_due(T0 + 5) == []
    [ev] = m.command_finished(S, 1, T0 + 6)  # the finish goes to the active turn
    assert ev.run_id == ne.turn_run_id(CODEX, "t1") and ev.kind is AgentEventKind.FAILED
    k = key(41, 0, CODEX)
    assert ev.id == stable_uuid("event", "native", "command-finished", f"{k}\0t1")


def test_exit_in_turn_mode_goes_to_the_active_turn() -> None:
    m = ne.NativeEpochs()
    started(m)
    m.observe_turn(S, obs("p1", "active"), T0 + 4)
    [ev] = m.provider_changed(S, None, None, T0 + 5)
    assert ev.run_id == ne.turn_run_id(CLAUDE, "p1") and ev.kind is AgentEventKind.DISCONNECTED
    assert ev.id == stable_uuid("event", "native", "process-exited", f"{key()}\0p1")


def test_observations_about_turns_already_started_are_ignored() -> None:
    # (The original ignores every key that is not the active one; here a turn never started
    # that is seen finished after the first look is a run: see the tests at the end.)
    m = ne.NativeEpochs()
    started(m)
    m.observe_turn(S, obs("p0", "active"), T0 + 4)
    m.observe_turn(S, obs("p1", "active"), T0 + 4.5)  # p0 superseded
    assert m.observe_turn(S, obs("p0", "completed"), T0 + 5) == []
    assert m.observe_turn(S, obs("p0", "interrupted"), T0 + 6) == []
    # An old key seen active again is not started twice.
    m.observe_turn(S, obs("p1", "completed"), T0 + 7)
    assert m.observe_turn(S, obs("p1", "active"), T0 + 8) == []


def test_an_ended_epoch_hands_off_silently() -> None:
    m = ne.NativeEpochs()
    started(m)
    m.command_finished(S, 0, T0 + 4)
    assert m.observe_turn(S, obs("p1", "active"), T0 + 5) == []


def test_an_observation_is_acted_on_only_when_it_changed_for_the_pane() -> None:
    m = ne.NativeEpochs()
    started(m)
    m.observe_turn(S, obs("p1", "completed"), T0 + 4)  # handoff; nothing active
    m.provider_changed(S, None, None, T0 + 5)
    m.forget_process(S, 41)
    started(m, pid=50)
    # The transcript still says the same: the new epoch stays an epoch-level run.
    assert m.observe_turn(S, obs("p1", "completed"), T0 + 6) == []
    assert m.epoch(S).turn_mode is False  # type: ignore[union-attr]


# -- properties ------------------------------------------------------------------------------

_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("provider"),
            st.sampled_from([None, CLAUDE, CODEX]),
            st.integers(min_value=40, max_value=43),
            st.booleans(),
        ),
        st.tuples(st.just("fire"), st.floats(min_value=0, max_value=5)),
        st.tuples(st.just("finish"), st.one_of(st.none(), st.integers(0, 255))),
        st.tuples(
            st.just("turn"),
            st.sampled_from(["a", "b", "c"]),
            st.sampled_from(list(TurnPhase)),
        ),
        st.tuples(st.just("cover"), st.sampled_from([CLAUDE, CODEX])),
        st.tuples(st.just("forget"), st.integers(min_value=40, max_value=43)),
    ),
    max_size=30,
)


def _run(ops: list[tuple[Any, ...]]) -> tuple[list[AgentEvent], list[tuple[int, bool]]]:
    """Apply ``ops``; return every event and, per op, (events emitted, epoch was covered)."""
    m = ne.NativeEpochs()
    now = T0
    out: list[AgentEvent] = []
    trace: list[tuple[int, bool]] = []
    for op in ops:
        now += 1
        epoch = m.epoch(S)
        covered = epoch is not None and epoch.covered
        if op[0] == "provider":
            _, provider, pid, suppressed = op
            events = m.provider_changed(S, provider, pid, now, suppressed=suppressed)
        elif op[0] == "fire":
            now += op[1]
            events = m.fire_due(now)
        elif op[0] == "finish":
            events = m.command_finished(S, op[1], now)
        elif op[0] == "turn":
            events = m.observe_turn(S, TurnObservation(op[1], op[2]), now)
        elif op[0] == "cover":
            m.mark_hook_covered(S, op[1])
            events = []
        else:
            m.forget_process(S, op[1])
            events = []
        trace.append((len(events), covered))
        out += events
    return out, trace


@settings(max_examples=300, deadline=None)
@given(_OPS)
def test_deterministic_and_never_waiting(ops: list[tuple[Any, ...]]) -> None:
    first, trace = _run(ops)
    assert first == _run(ops)[0]  # same inputs, same events, same ids
    for event in first:
        assert event.kind not in (
            AgentEventKind.INPUT_REQUESTED,
            AgentEventKind.APPROVAL_REQUESTED,
            AgentEventKind.RUNNING,
        )
        assert event.hook_name in ne.NATIVE_HOOK_NAMES and event.synthesized
        assert event.session_id is None and event.surface_id == S
    assert len({e.id for e in first}) == len(first)  # no id is emitted twice
    for emitted, covered in trace:
        if covered:  # once an epoch is hook-covered, inputs for it emit nothing
            assert emitted == 0
    # The reducer accepts them all without a pane/provider conflict.
    book = RunBook()
    for event in first:
        assert not book.apply(event).rejected


def test_a_handed_off_epoch_run_is_continued_by_its_first_turn() -> None:
    m = ne.NativeEpochs()
    started(m)
    epoch_run = ne.epoch_run_id(key())
    assert m.successor(epoch_run) is None
    m.observe_turn(S, obs("p1", "completed"), T0 + 4)  # hand-off; no turn started yet
    assert m.successor(epoch_run) is None
    m.observe_turn(S, obs("p2", "active"), T0 + 5)
    assert m.successor(epoch_run) == ne.turn_run_id(CLAUDE, "p2")
    m.observe_turn(S, obs("p3", "active"), T0 + 6)  # later turns don't move it
    assert m.successor(epoch_run) == ne.turn_run_id(CLAUDE, "p2")


def test_a_restored_turn_epoch_continues_the_active_turn() -> None:
    m = ne.NativeEpochs()
    left = ne.turn_run_id(CLAUDE, "p1")
    m.restore_started(S, CLAUDE, 41, active_turns=frozenset({left}))
    # The transcript shows the turn finished meanwhile: it ends on the same run.
    [done] = m.observe_turn(S, obs("p1", "completed"), T0)
    assert done.run_id == left and done.hook_name == ne.TURN_COMPLETED
    assert m.provider_changed(S, None, None, T0 + 1) == []  # nothing active any more


def test_a_restored_turn_epoch_reports_the_exit_on_the_running_turn() -> None:
    m = ne.NativeEpochs()
    left = ne.turn_run_id(CLAUDE, "p1")
    m.restore_started(S, CLAUDE, 41, active_turns=frozenset({left}))
    assert m.observe_turn(S, obs("p1", "active"), T0) == []  # taken up, not started again
    [gone] = m.provider_changed(S, None, None, T0 + 1)
    assert gone.run_id == left and gone.kind is AgentEventKind.DISCONNECTED


# -- a whole turn between two looks (difference from the original) ---------------------------


def test_a_turn_first_seen_finished_is_started_and_ended_after_an_empty_look() -> None:
    """The real Claude and Codex answer a short prompt within one 0.5 s pass: the look before
    found no turn, the next one finds it completed. It still is a run (started, completed)."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0)
    assert m.observe_turn(S, None, T0 + 0.5) == []  # no transcript yet
    out = m.observe_turn(S, obs("p1", "completed"), T0 + 1)
    assert brief(out) == [("started", ne.TURN_STARTED), ("succeeded", ne.TURN_COMPLETED)]
    assert {e.run_id for e in out} == {ne.turn_run_id(CLAUDE, "p1")}
    assert [e.id for e in out] == [turn_id("started", "p1"), turn_id("completed", "p1")]
    assert m.fire_due(T0 + 5) == []  # in turn mode: no epoch-level start
    assert m.provider_changed(S, None, None, T0 + 6) == []  # nothing active
    book = RunBook()
    assert not any(book.apply(e).rejected for e in out)


def test_a_fast_second_turn_supersedes_a_turn_whose_end_was_not_seen() -> None:
    m = ne.NativeEpochs()
    started(m)
    m.observe_turn(S, obs("p1", "active"), T0 + 4)
    out = m.observe_turn(S, obs("p2", "interrupted"), T0 + 5)
    assert brief(out) == [
        ("idle", ne.TURN_SUPERSEDED),
        ("started", ne.TURN_STARTED),
        ("idle", ne.TURN_INTERRUPTED),
    ]
    assert out[0].run_id == ne.turn_run_id(CLAUDE, "p1")
    assert {e.run_id for e in out[1:]} == {ne.turn_run_id(CLAUDE, "p2")}


def test_a_handed_off_epoch_run_is_continued_by_a_turn_first_seen_finished() -> None:
    m = ne.NativeEpochs()
    started(m)
    epoch_run = ne.epoch_run_id(key())
    m.observe_turn(S, None, T0 + 3.5)
    out = m.observe_turn(S, obs("p1", "completed"), T0 + 4)
    assert brief(out) == [
        ("idle", ne.TURN_HANDOFF),
        ("started", ne.TURN_STARTED),
        ("succeeded", ne.TURN_COMPLETED),
    ]
    assert m.successor(epoch_run) == ne.turn_run_id(CLAUDE, "p1")


def test_the_first_look_finding_a_finished_turn_starts_nothing() -> None:
    """``claude --resume``: the transcript already ends with an old, finished turn."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0)
    assert m.observe_turn(S, obs("old", "completed"), T0 + 0.5) == []
    assert m.observe_turn(S, obs("old", "completed"), T0 + 1) == []
    # A turn already started is never started again, even seen finished later.
    assert brief(m.observe_turn(S, obs("p1", "active"), T0 + 2)) == [("started", ne.TURN_STARTED)]
    m.observe_turn(S, obs("p1", "completed"), T0 + 3)
    m.observe_turn(S, obs("p2", "active"), T0 + 4)
    m.observe_turn(S, obs("p2", "completed"), T0 + 5)
    assert m.observe_turn(S, obs("p1", "completed"), T0 + 6) == []


@pytest.mark.parametrize(
    ("began", "process_started", "is_a_run"),
    [
        (T0 - 0.2, T0 - 0.5, True),  # the prompt came after the process started: its own turn
        (T0 - 0.5, T0 - 0.5, True),  # the same tick
        (T0 - 60, T0 - 0.5, False),  # a resumed session's old turn
        (None, T0 - 0.5, False),  # the transcript gives no time: as the original
        (T0 - 0.2, None, False),  # the process start is unknown: as the original
    ],
)
def test_the_first_look_counts_a_finished_turn_that_began_in_this_process(
    began: float | None, process_started: float | None, is_a_run: bool
) -> None:
    """An agent so quick that the very first look already finds its first turn over: the turn
    is a run when its transcript says it began after the agent's process started."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0, process_started_at=process_started)
    finished = TurnObservation("p1", TurnPhase.COMPLETED, started_at=began)
    out = m.observe_turn(S, finished, T0 + 0.5)
    if is_a_run:
        assert brief(out) == [("started", ne.TURN_STARTED), ("succeeded", ne.TURN_COMPLETED)]
        assert {e.run_id for e in out} == {ne.turn_run_id(CLAUDE, "p1")}
    else:
        assert out == []
    assert m.observe_turn(S, finished, T0 + 1) == []  # once


def test_a_new_process_brings_its_own_start_time() -> None:
    """The epoch of the next process in the pane compares with that process's start."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0, process_started_at=T0 - 1)
    m.provider_changed(S, None, None, T0 + 1)
    m.provider_changed(S, CLAUDE, 42, T0 + 2, process_started_at=T0 + 1.5)
    # Began under pid 41, after its start but before pid 42's: an old turn for pid 42.
    old = TurnObservation("p1", TurnPhase.COMPLETED, started_at=T0 - 0.5)
    assert m.observe_turn(S, old, T0 + 2.5) == []


@pytest.mark.parametrize("seen_active", [True, False])
def test_a_failed_turn_fails_its_run_with_the_message(seen_active: bool) -> None:
    """Codex's rollout records the model API error on task_complete (no hook fires): the turn
    fails with the error's message, seen active first or only once it had ended."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CODEX, 41, T0)
    m.observe_turn(S, None, T0 + 0.5)
    if seen_active:
        m.observe_turn(S, obs("t1", "active"), T0 + 1)
    failed = TurnObservation("t1", TurnPhase.FAILED, "stream disconnected: 400")
    out = m.observe_turn(S, failed, T0 + 2)
    assert brief(out)[-1] == ("failed", ne.TURN_FAILED)
    assert len(out) == (1 if seen_active else 2)
    end = out[-1]
    assert end.run_id == ne.turn_run_id(CODEX, "t1") and end.message == "stream disconnected: 400"
    assert end.id == stable_uuid("event", "native", "turn-failed", key(41, 0, CODEX), "t1")
    assert m.provider_changed(S, None, None, T0 + 3) == []  # nothing active any more


@pytest.mark.parametrize("seen_active", [True, False])
def test_a_limited_turn_parks_its_run_with_the_agents_text(seen_active: bool) -> None:
    """An un-hooked agent's transcript says the turn stopped at the usage limit: the turn's run
    gets ``limit-reached`` (mytty.native.turnLimited) with the agent's text."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0)
    m.observe_turn(S, None, T0 + 0.5)
    if seen_active:
        m.observe_turn(S, obs("p1", "active"), T0 + 1)
    limited = TurnObservation("p1", TurnPhase.LIMITED, "You've hit your 5-hour limit")
    out = m.observe_turn(S, limited, T0 + 2)
    assert brief(out)[-1] == ("limit-reached", ne.TURN_LIMITED)
    end = out[-1]
    assert end.run_id == ne.turn_run_id(CLAUDE, "p1")
    assert end.message == "You've hit your 5-hour limit"
    assert end.id == stable_uuid("event", "native", "turn-limited", key(41, 0, CLAUDE), "p1")


# -- turns that ended and were followed within one look ----------------------------------------


def passed(k: str, phase: str = "completed", began: float | None = None) -> TurnObservation:
    return TurnObservation(k, TurnPhase(phase), answer="done", started_at=began)


def test_a_queued_prompt_does_not_turn_a_finished_turn_into_a_superseded_one() -> None:
    """A prompt typed while the agent was busy starts as the turn ends: one look sees the new
    turn, and the transcript reader says the old one completed before it."""
    m = ne.NativeEpochs()
    started(m)
    m.observe_turn(S, obs("p1", "active"), T0 + 4)
    now = TurnObservation("p2", TurnPhase.ACTIVE, before=(passed("p1"),))
    out = m.observe_turn(S, now, T0 + 5)
    assert brief(out) == [("succeeded", ne.TURN_COMPLETED), ("started", ne.TURN_STARTED)]
    assert out[0].run_id == ne.turn_run_id(CLAUDE, "p1")
    assert out[0].last_assistant_message == "done"  # the answer rides on the completion
    assert out[1].run_id == ne.turn_run_id(CLAUDE, "p2")


def test_whole_turns_between_two_looks_are_runs_when_they_began_in_this_process() -> None:
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0, process_started_at=T0 - 1)
    m.observe_turn(S, None, T0 + 0.5)
    now = TurnObservation(
        "p3",
        TurnPhase.ACTIVE,
        before=(passed("p1", began=T0 + 0.6), passed("p2", "interrupted", began=T0 + 0.7)),
    )
    out = m.observe_turn(S, now, T0 + 1)
    assert brief(out) == [
        ("started", ne.TURN_STARTED),
        ("succeeded", ne.TURN_COMPLETED),
        ("started", ne.TURN_STARTED),
        ("idle", ne.TURN_INTERRUPTED),
        ("started", ne.TURN_STARTED),
    ]
    assert [e.run_id for e in out] == [
        ne.turn_run_id(CLAUDE, k) for k in ("p1", "p1", "p2", "p2", "p3")
    ]
    assert not any(RunBook().apply(e).rejected for e in out[:2])


def test_a_first_read_passing_a_files_old_turns_makes_no_runs() -> None:
    """The first read of a transcript (a resumed session, or a reader that found the file
    late) passes every older turn in it: none began in this process, none is a run; nor one
    whose time is unknown, nor one already started and ended."""
    m = ne.NativeEpochs()
    m.provider_changed(S, CLAUDE, 41, T0, process_started_at=T0 - 1)
    m.observe_turn(S, None, T0 + 0.5)
    old = (passed("o1", began=T0 - 600), passed("o2", began=None))
    out = m.observe_turn(S, TurnObservation("o3", TurnPhase.COMPLETED, before=old), T0 + 1)
    # o3 is the reported turn itself: the rule for it is the one above (a look came before).
    assert {e.run_id for e in out} == {ne.turn_run_id(CLAUDE, "o3")}
    again = TurnObservation("p4", TurnPhase.ACTIVE, before=(passed("o3", began=T0),))
    assert brief(m.observe_turn(S, again, T0 + 2)) == [("started", ne.TURN_STARTED)]
