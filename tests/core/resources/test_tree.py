"""A process tree's memory and rolling CPU percentage."""

from __future__ import annotations

from mytty.core.resources.tree import ProcessSample, TreeSample, cpu_percent, rolling_cpu

TICKS = 100.0


def sample(at: float, *procs: tuple[int, int, int]) -> TreeSample:
    return TreeSample(at, tuple(ProcessSample(pid, 7, cpu, rss) for pid, cpu, rss in procs))


def test_rss_adds_up_and_cpu_is_a_percentage_of_one_core() -> None:
    older = sample(10.0, (1, 100, 1000), (2, 50, 2000))
    newer = sample(12.0, (1, 300, 1500), (2, 50, 2000))
    assert newer.rss_bytes == 3500
    assert cpu_percent(older, newer, TICKS) == 100.0  # 200 ticks in 2 s = one core


def test_a_new_process_counts_whole_and_a_recycled_pid_is_new() -> None:
    older = sample(0.0, (1, 100, 0))
    newer = TreeSample(1.0, (ProcessSample(1, 8, 30, 0), ProcessSample(2, 7, 20, 0)))
    assert cpu_percent(older, newer, TICKS) == 50.0


def test_no_time_between_is_no_percentage_and_rolling_takes_the_window() -> None:
    a = sample(1.0, (1, 0, 0))
    assert cpu_percent(a, a, TICKS) is None
    assert rolling_cpu([a], TICKS) is None
    samples = [sample(t, (1, int(t * 50), 0)) for t in (1.0, 2.0, 3.0, 4.0, 9.0)]
    # From the oldest sample within 5 s of the newest (4.0) to the newest: 50 %.
    assert rolling_cpu(samples, TICKS) == 50.0
