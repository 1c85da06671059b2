"""The resource sampler over a fake /proc table: trees, rolling CPU, peaks, when it samples."""

from __future__ import annotations

import asyncio

from mytty.core.events import WorkerProvider
from mytty.daemon import procfs
from mytty.daemon.resources.sampler import FRESH_S, ResourceSampler, Target

PAGE = procfs.PAGE_SIZE
TICKS = procfs.TICKS_PER_SECOND


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def table(cpu: int) -> dict[int, procfs.ProcStat]:
    # pane shell 10 → agent 11 → tool 12; another pane 20; a stranger 30.
    return {
        10: procfs.ProcStat(10, 1, 5, 0, 100),
        11: procfs.ProcStat(11, 10, 6, cpu, 1000),
        12: procfs.ProcStat(12, 11, 7, 0, 50),
        20: procfs.ProcStat(20, 1, 8, 0, 10),
        30: procfs.ProcStat(30, 1, 9, 0, 99999),
    }


def test_a_tree_is_the_panes_process_and_everything_below_it() -> None:
    clock, cpu = Clock(), [0]
    targets = {
        "J1": Target(10, WorkerProvider.CLAUDE, True),
        "J2": Target(20, WorkerProvider.CODEX, False),
    }
    sampler = ResourceSampler(targets=lambda: targets, monotonic=clock, table=lambda: table(cpu[0]))
    assert sampler.part("J1") == {}
    sampler.sample_now()
    assert sampler.part("J1") == {"rssBytes": 1150 * PAGE, "cpuPercent": None}  # one sample
    cpu[0] = TICKS  # one second of CPU ...
    clock.t += 0.5
    sampler.sample_now()  # ... but less than a second later: no new sample
    assert sampler.samples_taken == 1
    clock.t += 1.5
    sampler.sample_now()
    assert sampler.part("J1") == {"rssBytes": 1150 * PAGE, "cpuPercent": 50.0}  # 1 s in 2 s
    # Only settled (running) workers teach what a worker takes.
    assert sampler.peak_mb() == {WorkerProvider.CLAUDE: 1150 * PAGE / 1024 / 1024}
    clock.t += FRESH_S + 1
    assert sampler.part("J1") == {}  # stale figures are not shown


def test_it_samples_only_while_someone_reads_or_a_limit_needs_it() -> None:
    async def main() -> None:
        clock = Clock()
        sampler = ResourceSampler(
            targets=lambda: {"J1": Target(10, WorkerProvider.CLAUDE, True)},
            monotonic=clock,
            table=lambda: table(0),
        )
        assert not sampler.wanted()
        task = asyncio.ensure_future(sampler.run())
        await asyncio.sleep(0.05)
        assert sampler.samples_taken == 0  # nobody asked: not a single read of /proc
        await sampler.refresh()  # a reader
        assert sampler.samples_taken == 1 and sampler.wanted()
        clock.t += 31.0  # the linger is over
        assert not sampler.wanted()
        sampler.need(True)
        assert sampler.wanted()
        task.cancel()

    asyncio.run(main())
