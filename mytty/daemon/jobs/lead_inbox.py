"""Lead notices (``agent spawn --notify-lead``): what a lead is told of its workers, and when.

A worker spawned with ``--notify-lead`` has news for its lead (the pane it was spawned from)
once its job ends or needs attention (:func:`mytty.core.jobs.tracker.pending_notice`). The news waits
in the job itself: its state is stored, and so is the token of the last outcome the lead was
told (``AgentJob.notified``). Nothing is typed into the lead's pane. Instead, when the lead's
own hook fires at a turn boundary (Claude Code's ``UserPromptSubmit`` or ``SessionStart``) and
says it can carry a notice (the envelope's ``leadNotices``), :meth:`LeadInbox.take` reconciles
the lead's jobs, writes one short text for all their news, records them as told (committed
before the reply leaves), and the event reply hands the text to the hook, which prints it as
the provider's additional context. So a lead hears of each outcome once, at its next prompt,
never mid-turn; a restart neither loses news (the job's state is stored) nor repeats it (nor is
the told token). A hook retry (``inserted: false``) gets no notice: the first delivery counts.

A job spawned with ``--budget-usd`` also has news for its lead when it reaches 80 % of its
budget (and when it used it up), with or without ``--notify-lead``: the usage book keeps what
was told (:meth:`mytty.daemon.transcripts.usage.UsageBook.budget_news`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.daemon.jobs.registry import JobRegistry

log = logging.getLogger(__name__)

#: At most this many jobs are told in one notice; the rest wait for the next turn.
MAX_JOBS_PER_NOTICE = 10
#: A job's message is clipped to this many characters in a notice.
MAX_MESSAGE_CHARS = 200

_HEADER = "mytty: news from workers you spawned with --notify-lead:"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def notice_line(job: AgentJob) -> str:
    """One job's news: who, what state, its message, and the command to look further."""
    label = f' "{_clip(job.label, 60)}"' if job.label else ""
    what = job.state.value
    message = f": {_clip(job.message, MAX_MESSAGE_CHARS)}" if job.message else ""
    return (
        f"- job {job.job_id}{label} ({job.provider.value}) is {what}{message}. "
        f"See `mytty-ctl agent result {job.job_id}`."
    )


_BUDGET_HEADER = "mytty: dollar budgets of workers you spawned:"


def notice_text(jobs: list[AgentJob], more: int = 0, budgets: list[str] | None = None) -> str:
    """The whole notice for ``jobs`` (``more``: news left for the next turn; ``budgets``:
    lines about dollar budgets)."""
    lines = [_HEADER, *(notice_line(j) for j in jobs)] if jobs else []
    if more:
        lines.append(f"- and {more} more (told next turn; `mytty-ctl agent list` lists all).")
    if budgets:
        lines += [_BUDGET_HEADER, *budgets]
    return "\n".join(lines)


class LeadInbox:
    def __init__(
        self,
        jobs: JobRegistry,
        budget_news: Callable[[list[AgentJob]], list[str]] = lambda _jobs: [],
    ) -> None:
        self._jobs = jobs
        #: The lead's jobs' dollar-budget news, recorded as told (the usage book's).
        self._budget_news = budget_news
        # One notice at a time: two hooks of one lead at once must not both tell a job.
        self._lock = asyncio.Lock()

    async def take(self, lead: SurfaceId) -> str | None:
        """The notice for ``lead``'s untold news, now recorded as told (None: no news)."""
        async with self._lock:
            news = self._jobs.with_news_for(lead)
            budgets = self._budget_news(self._jobs.led_by(lead))
            if not news and not budgets:
                return None
            told = news[:MAX_JOBS_PER_NOTICE]
            if told:
                await self._jobs.mark_notified(told)
            log.info("told lead %s of %d job(s), %d budget(s)", lead, len(told), len(budgets))
            return notice_text(told, more=len(news) - len(told), budgets=budgets)
