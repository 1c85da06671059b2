"""What the publisher adds for admission and resources: a queued pane reads ``queued``, and the
job's cost, memory and CPU become ``@mytty_cost``, ``@mytty_rss`` and ``@mytty_cpu``."""

from __future__ import annotations

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs.tracker import new_job, queue
from mytty.core.runs.book import RunBook
from mytty.daemon import tmux_publish as tp

PANE = SurfaceId("6F1C2E0A-0B1D-4C55-9B7E-0D1D2A3B4C5D")


def test_a_queued_pane_reads_queued_even_over_an_earlier_run() -> None:
    job = queue(new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, "w", [], 0.0), "memory", 1, "…")
    book = RunBook()
    # mytty resume records an idle run on the new pane before the worker starts.
    book.apply(
        AgentEvent(
            id="E",
            run_id=RunId("R"),
            surface_id=PANE,
            provider=AgentProvider.CLAUDE_CODE,
            kind=AgentEventKind.IDLE,
            occurred_at=1.0,
        )
    )
    facts = tp.PaneFacts(PANE, "%1", "s", book.most_relevant(PANE), job, None)
    values = tp.pane_values(facts, [])
    assert values is not None and values[tp.STATE] == "queued"


def test_cost_memory_and_cpu_are_published_and_empty_when_unknown() -> None:
    job = new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, "w", [], 0.0)
    known = tp.PaneFacts(
        PANE,
        "%1",
        "s",
        None,
        job,
        None,
        tokens=10,
        cost_usd=0.0421,
        rss_bytes=524_288_000,
        cpu_percent=12.34,
    )
    values = tp.pane_values(known, []) or {}
    # Whole MiB and whole percent: a steady worker's options do not change every second.
    assert (values[tp.COST], values[tp.RSS], values[tp.CPU]) == ("0.042100", "524288000", "12")
    assert tp.published_figures({"rssBytes": 524_288_000 + 1000, "cpuPercent": 12.4}) == (500, 12)
    unknown = tp.pane_values(tp.PaneFacts(PANE, "%1", "s", None, job, None), []) or {}
    assert (unknown[tp.COST], unknown[tp.RSS], unknown[tp.CPU]) == ("", "", "")
    assert {tp.COST, tp.RSS, tp.CPU} <= set(tp.PANE_OPTIONS)
