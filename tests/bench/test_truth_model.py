"""The truth soak's comparison (tests/bench/truth_model.py): pure functions, no tmux."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.bench import truth_model as tm
from tests.bench.truth_model import Change, Sample


def samples_of(timeline: list[tuple[float, str]], until: float, step: float = 0.25) -> list[Sample]:
    """Readings every ``step`` seconds of a shown timeline [(from t, state)]."""
    out = []
    t = 0.0
    while t <= until:
        shown = [s for start, s in timeline if start <= t][-1]
        out.append(Sample(t, shown))
        t = round(t + step, 6)
    return out


def test_screen_lines_map_to_truth_states() -> None:
    assert tm.truth_of_line("STANDIN turn 3 started", tm.SUCCEEDED) == tm.RUNNING
    assert tm.truth_of_line("STANDIN turn 3 done", tm.RUNNING) == tm.SUCCEEDED
    assert tm.truth_of_line("STANDIN turn 3 done (failed)", tm.RUNNING) == tm.FAILED
    assert tm.truth_of_line("STANDIN waiting for approval", tm.RUNNING) == tm.WAITING_APPROVAL
    assert tm.truth_of_line("STANDIN waiting for input", tm.RUNNING) == tm.WAITING_INPUT
    assert tm.truth_of_line("STANDIN tool ran: 0", tm.WAITING_APPROVAL) == tm.RUNNING
    assert tm.truth_of_line("STANDIN tool ran: 0", tm.RUNNING) is None
    assert (
        tm.truth_of_line(" ⎿ Allowed by PermissionRequest hook", tm.WAITING_APPROVAL) == tm.RUNNING
    )
    assert tm.truth_of_line("• Working (0s • esc to interrupt) · Running hook", tm.RUNNING) == (
        tm.WAITING_APPROVAL
    )
    assert tm.truth_of_line("STANDIN interrupted by Esc", tm.RUNNING) == tm.INTERRUPTED
    assert tm.truth_of_line("STANDIN bye", tm.SUCCEEDED) == tm.EXITED
    assert tm.truth_of_line("STANDIN crashing", tm.RUNNING) == tm.CRASHED
    assert tm.truth_of_line("STANDIN ready", tm.STARTING) == tm.IDLE
    assert tm.truth_of_line("STANDIN ready", tm.SUCCEEDED) is None
    assert tm.truth_of_line("STANDIN holding (Esc interrupts)", tm.RUNNING) is None


def test_a_log_becomes_changes_with_turn_numbers() -> None:
    rows: list[dict[str, object]] = [
        {"t": 1.0, "pane": "P", "pid": 1, "name": "claude"},
        {"t": 1.1, "line": "STANDIN claude pid=1"},
        {"t": 1.2, "line": "STANDIN turn 1 started"},
        {"t": 2.0, "line": "STANDIN turn 1 done"},
        {"t": 2.1, "line": "STANDIN ready"},
        {"t": 3.0, "line": "STANDIN turn 2 started"},
        {"t": 3.5, "line": "STANDIN waiting for input"},
    ]
    assert tm.changes_from_log(rows) == [
        Change(1.0, tm.STARTING),
        Change(1.2, tm.RUNNING, 1),
        Change(2.0, tm.SUCCEEDED, 1),
        Change(3.0, tm.RUNNING, 2),
        Change(3.5, tm.WAITING_INPUT, 2),
    ]


def test_a_kill_between_turns_keeps_the_result_and_one_mid_turn_does_not() -> None:
    log = [Change(0, tm.RUNNING, 1), Change(1, tm.SUCCEEDED, 1)]
    merged = tm.merge_changes(log, [Change(2, tm.KILLED)])
    assert merged[-1].state == tm.GONE and "succeeded" in tm.accepted(tm.GONE)
    merged = tm.merge_changes([Change(0, tm.RUNNING, 1)], [Change(2, tm.KILLED)])
    assert merged[-1].state == tm.KILLED and "succeeded" not in tm.accepted(tm.KILLED)


def test_a_job_re_armed_by_the_next_prompt_is_right_until_its_turn_begins() -> None:
    # succeeded, then the harness sends the next prompt at 5; the stand-in starts it at 8.
    log = [Change(0, tm.RUNNING, 1), Change(4, tm.SUCCEEDED, 1), Change(8, tm.RUNNING, 2)]
    changes = tm.merge_changes(log, [Change(5, tm.PROMPTED)])
    shown: list[tuple[float, str]] = [
        (0, "running"),
        (4, "succeeded"),
        (5.25, "launching"),
        (8, "running"),
    ]
    score = tm.score_agent(changes, samples_of(shown, 10), allowance=1.0)
    assert score.wrong_s == 0 and not score.stuck
    # launching long before any prompt is wrong: nothing was on its way
    later = tm.merge_changes(log, [Change(7.5, tm.PROMPTED)])
    early: list[tuple[float, str]] = [(0, "running"), (4, "launching"), (8, "running")]
    wrong = tm.score_agent(later, samples_of(early, 10), allowance=1.0)
    assert set(wrong.wrong_by) == {"succeeded->launching"} and wrong.wrong_s >= 1.0
    # killed while prompted: the job may read lost, as after a finished turn
    assert tm.merge_changes(changes, [Change(6, tm.KILLED)])[-2].state == tm.GONE


def test_a_view_that_follows_the_truth_at_once_is_never_wrong() -> None:
    changes = [Change(0, tm.RUNNING, 1), Change(5, tm.SUCCEEDED, 1), Change(8, tm.RUNNING, 2)]
    samples = samples_of([(0, "running"), (5, "succeeded"), (8, "running")], 12)
    score = tm.score_agent(changes, samples, allowance=1.0)
    assert score.wrong_s == 0 and score.lag_s == 0 and not score.stuck
    assert score.lags == [0.0, 0.0, 0.0]
    assert abs(score.observed_s - 12.0) < 1e-9


def test_a_late_view_is_lag_within_the_allowance_and_wrong_past_it() -> None:
    changes = [Change(0, tm.RUNNING, 1), Change(5, tm.SUCCEEDED, 1)]
    quick = tm.score_agent(
        changes, samples_of([(0, "running"), (5.5, "succeeded")], 10), allowance=1.0
    )
    assert quick.wrong_s == 0 and abs(quick.lag_s - 0.5) < 1e-9 and quick.lags == [0.0, 0.5]
    slow = tm.score_agent(
        changes, samples_of([(0, "running"), (7, "succeeded")], 10), allowance=1.0
    )
    assert abs(slow.wrong_s - 0.75) < 1e-9 and abs(slow.lag_s - 1.25) < 1e-9
    assert slow.wrong_by == {"succeeded->running": slow.wrong_s}
    assert slow.lags == [0.0, 2.0]


def test_a_view_a_moment_ahead_of_the_log_is_lag_not_wrong() -> None:
    # The stand-in logs "turn done" after its Stop hook ran: mytty may show it first.
    changes = [Change(0, tm.RUNNING, 1), Change(5, tm.SUCCEEDED, 1)]
    score = tm.score_agent(
        changes, samples_of([(0, "running"), (4.5, "succeeded")], 8), allowance=1
    )
    assert score.wrong_s == 0 and abs(score.lag_s - 0.5) < 1e-9


def test_a_state_wrong_for_more_than_ten_seconds_is_stuck() -> None:
    changes = [Change(0, tm.RUNNING, 1), Change(2, tm.SUCCEEDED, 1), Change(4, tm.RUNNING, 2)]
    changes += [Change(6, tm.SUCCEEDED, 2), Change(30, tm.EXITED, 2)]
    score = tm.score_agent(changes, samples_of([(0, "running")], 30), allowance=1.0)
    assert len(score.stuck) == 1
    start, seconds, _truth, shown = score.stuck[0]
    assert start == 0 and shown == "running" and seconds >= 10
    fine = tm.score_agent(changes[:3], samples_of([(0, "running")], 3.75), allowance=1.0)
    assert not fine.stuck


def test_a_state_never_shown_is_unseen() -> None:
    changes = [Change(0, tm.RUNNING, 1), Change(2, tm.WAITING_APPROVAL, 1), Change(6, tm.RUNNING)]
    score = tm.score_agent(changes, samples_of([(0, "running")], 8), allowance=1.0)
    assert [(t, s) for t, s, _ in score.unseen] == [(2, tm.WAITING_APPROVAL)]


def test_readings_missing_are_not_scored() -> None:
    changes = [Change(0, tm.RUNNING, 1)]
    samples = [Sample(0, None), Sample(0.25, None), Sample(0.5, "running"), Sample(0.75, "running")]
    score = tm.score_agent(changes, samples, allowance=1.0)
    assert abs(score.observed_s - 0.25) < 1e-9


STATES = sorted(tm.ACCEPT)
SHOWN = sorted({s for accepted in tm.ACCEPT.values() for s in accepted} | {"unknown"})


@given(
    st.lists(st.tuples(st.floats(0.05, 5), st.sampled_from(STATES)), min_size=1, max_size=12),
    st.lists(st.tuples(st.floats(0.05, 5), st.sampled_from(SHOWN)), min_size=1, max_size=12),
)
def test_right_lag_and_wrong_never_add_up_to_more_than_what_was_observed(
    truth_steps: list[tuple[float, str]], shown_steps: list[tuple[float, str]]
) -> None:
    def timeline(steps: list[tuple[float, str]]) -> list[tuple[float, str]]:
        out, t = [], 0.0
        for gap, state in steps:
            out.append((t, state))
            t += gap
        return out

    truth = [Change(t, s) for t, s in timeline(truth_steps)]
    shown = timeline(shown_steps)
    end = max(truth[-1].t, shown[-1][0]) + 1
    score = tm.score_agent(truth, samples_of(shown, end), allowance=1.0)
    assert score.wrong_s + score.lag_s <= score.observed_s + 1e-9
    assert abs(sum(score.wrong_by.values()) - score.wrong_s) < 1e-6
    assert all(lag >= 0 for lag in score.lags)
    assert len(score.lags) + len(score.unseen) <= len(truth)


@given(st.lists(st.floats(0, 100), min_size=1, max_size=50), st.floats(0, 100), st.floats(0, 100))
def test_percentiles_are_values_and_grow_with_p(values: list[float], p: float, q: float) -> None:
    low, high = sorted((p, q))
    a, b = tm.percentile(values, low), tm.percentile(values, high)
    assert a in values and b in values and a is not None and b is not None and a <= b
    assert tm.percentile(values, 100) == max(values)


def test_no_values_have_no_percentile() -> None:
    assert tm.percentile([], 50) is None
    assert tm.lag_figures([])["p99"] is None


def test_waits_are_judged_against_the_turn_that_ended_after_them() -> None:
    changes = [Change(0, tm.RUNNING, 1), Change(10, tm.SUCCEEDED, 1)]

    def judge(woke: float | None, timed_out: bool = False) -> str:
        return tm.judge_wait(tm.Wait("j", 1, woke, timed_out, 60), changes, late_after=1.0)

    assert judge(10.4) == "ok"
    assert judge(12.0) == "late"
    # a follow-up's turn right after: the job followed it, so waking at its end is on time
    followed = [*changes, Change(10.2, tm.RUNNING, 2), Change(14, tm.SUCCEEDED, 2)]
    assert tm.judge_wait(tm.Wait("j", 1, 14.3, False, 60), followed, late_after=1.0) == "ok"
    assert tm.ending_before(followed, 1, 14.3) == Change(14, tm.SUCCEEDED, 2)
    assert tm.ending_before(followed, 1, 11) == Change(10, tm.SUCCEEDED, 1)
    assert judge(5.0) == "early"
    assert judge(61, timed_out=True) == "never"
    assert judge(None) == "never"
    endless = [Change(0, tm.RUNNING, 1)]
    assert tm.judge_wait(tm.Wait("j", 1, 61, True, 60), endless, 1.0) == "expected-timeout"


def test_results_lost_when_missing_or_stale_and_doubled_when_handed_out_twice() -> None:
    figures = tm.judge_results(
        [
            ("a", 1, "Stand-in finished turn 1."),
            ("a", 2, None),  # lost
            ("a", 3, "Stand-in finished turn 2."),  # stale: lost
            ("a", 4, "The tool was refused: denied"),  # names no turn: not judged further
            ("b", 1, "The background agent reported back."),
            ("b", 2, "The background agent reported back."),  # the same for another turn
            ("c", None, None),  # the turn did not end with a result to check
        ]
    )
    assert figures == {"checked": 6, "lost": 2, "doubled": 1}


def test_verdicts_compare_each_figure_with_its_target() -> None:
    figures = {"wrongPercent": 0.4, "lagP99Hooked": 1.5, "stuckOver10s": 0, "waitsNever": None}
    targets = {"wrongPercent": 0.5, "lagP99Hooked": 1.0, "stuckOver10s": 0, "waitsNever": 0}
    assert tm.verdicts(figures, targets) == {
        "wrongPercent": True,
        "lagP99Hooked": False,
        "stuckOver10s": True,
        "waitsNever": False,  # no figure is no pass
    }


def test_a_turn_at_the_usage_limit_is_parked_until_the_next_turn_begins() -> None:
    lines = [
        "STANDIN turn 3 started",
        "  \u23bf  You've hit your 5-hour limit \u00b7 resets 3:04pm (UTC)",
        "STANDIN turn 3 done",
        "STANDIN ready",
        "STANDIN turn 4 started",
        "STANDIN turn 4 done",
    ]
    rows = [{"t": 0.0, "pane": "%1"}] + [
        {"t": float(i + 1), "line": x} for i, x in enumerate(lines)
    ]
    changes = tm.changes_from_log(rows)
    assert [(c.state, c.turn) for c in changes[1:]] == [
        (tm.RUNNING, 3),
        (tm.PARKED, 3),
        (tm.RUNNING, 4),
        (tm.SUCCEEDED, 4),
    ]
    assert tm.accepted(tm.PARKED) == {"parked"}
    assert tm.PARKED not in tm.ENDINGS  # a park ends no wait: the continuation's end does
