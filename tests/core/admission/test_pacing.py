"""mytty resume's pacing: bursts, intervals, and the stop after three failed starts."""

from __future__ import annotations

from mytty.core.admission.pacing import (
    FAILURES_TO_STOP,
    PaceState,
    Pacing,
    began,
    next_burst_at,
    restarted,
    settled,
    slots,
)

PACE = Pacing(burst=2, interval=10.0)


def test_a_burst_then_nothing_while_it_starts_or_before_the_interval() -> None:
    state = PaceState()
    assert slots(state, PACE, now=100.0, still_starting=0) == 2
    state = began(state, PACE, ["a"], now=100.0)
    assert slots(state, PACE, now=100.5, still_starting=1) == 1  # the burst has room
    state = began(state, PACE, ["b"], now=100.5)
    assert state.burst == ("a", "b") and next_burst_at(state, PACE) == 110.0
    assert slots(state, PACE, now=105.0, still_starting=0) == 0  # the interval
    assert slots(state, PACE, now=111.0, still_starting=1) == 0  # one still starting
    assert slots(state, PACE, now=111.0, still_starting=0) == 2
    assert began(state, PACE, [], now=200.0) == state
    later = began(state, PACE, ["c"], now=111.0)
    assert (later.burst_at, later.burst) == (111.0, ("c",))


def test_three_failed_starts_in_a_row_stop_it_and_a_good_one_resets_the_count() -> None:
    state = PaceState()
    for _ in range(FAILURES_TO_STOP - 1):
        state = settled(state, ok=False)
    state = settled(state, ok=True)
    assert state.failures == 0 and not state.stopped
    for _ in range(FAILURES_TO_STOP):
        state = settled(state, ok=False)
    assert state.stopped and FAILURES_TO_STOP == 3
    assert slots(state, PACE, now=1e9, still_starting=0) == 0
    assert not restarted(state).stopped


def test_a_burst_of_zero_still_lets_one_start() -> None:
    assert slots(PaceState(), Pacing(burst=0, interval=0.0), now=0.0, still_starting=0) == 1
