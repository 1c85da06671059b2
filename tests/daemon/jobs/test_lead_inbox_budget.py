"""A dollar budget's 80 % reaches the lead as a lead notice, once, with or without --notify-lead."""

from __future__ import annotations

from pathlib import Path

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId, TmuxPaneId
from mytty.core.jobs.tracker import SpawnTags
from mytty.core.transcripts.usage import TokenUsage, UsageReading
from mytty.daemon.jobs.lead_inbox import LeadInbox
from mytty.daemon.transcripts.usage import UsageBook
from tests.core.builders import U
from tests.daemon.admission.test_admission import LAUNCH, Machine, run

LEAD = SurfaceId(U("lead"))


def test_the_lead_hears_of_the_80_percent_once(tmp_path: Path) -> None:
    async def body(m: Machine) -> None:
        surface = SurfaceId(U("worker"))
        m.panes.register_created(surface, TmuxPaneId("%5"), 0)
        tags = SpawnTags(lead=LEAD, budget_usd="0.1")  # no --notify-lead
        job = await m.jobs.spawn(
            surface,
            WorkerProvider.CLAUDE,
            "w",
            [],
            tags,
            launch=LAUNCH,
            job_id=JobId(U("budgeted")),
        )

        async def escape(_surface: SurfaceId) -> None:
            pass

        usage = UsageBook(hub=m.hub, newest_job=m.jobs.newest_in_pane, interrupt=escape)
        inbox = LeadInbox(m.jobs, usage.budget_news)
        assert await inbox.take(LEAD) is None
        usage.pane_usage(
            surface, UsageReading(TokenUsage(output=6_000), "claude-sonnet-4-5")
        )  # $0.09
        notice = await inbox.take(LEAD)
        assert notice is not None
        assert notice.splitlines() == [
            "mytty: dollar budgets of workers you spawned:",
            f'- job {job.job_id} "w" (claude) has used 80% of its dollar budget: $0.09 of $0.10.',
        ]
        assert await inbox.take(LEAD) is None
        await usage.flush()

    run(tmp_path, body)
