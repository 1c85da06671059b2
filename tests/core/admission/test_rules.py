"""The admission rules: which queued jobs start, in order, and why the others wait."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.admission.accounts import AccountLimit
from mytty.core.admission.rules import (
    Candidate,
    Facts,
    Limits,
    QueueReason,
    Worker,
    plan,
    refusal,
    waiting_message,
)
from mytty.core.events import WorkerProvider
from mytty.core.ids import SurfaceId

CLAUDE, CODEX = WorkerProvider.CLAUDE, WorkerProvider.CODEX
LEAD_A, LEAD_B = SurfaceId("A"), SurfaceId("B")


def job(
    n: int, provider: WorkerProvider = CLAUDE, lead: SurfaceId | None = LEAD_A, **kw
) -> Candidate:
    return Candidate(f"job-{n}", provider, lead, **kw)


def test_without_limits_everything_starts_in_order() -> None:
    queue = [job(n) for n in range(5)]
    result = plan(queue, Facts(), Limits())
    assert result.start == tuple(c.job_id for c in queue)
    assert result.waiting == {}


def test_max_workers_lets_the_first_ones_in_and_says_why_the_rest_wait() -> None:
    live = (Worker(CLAUDE, LEAD_A),)
    result = plan([job(1), job(2), job(3)], Facts(live=live), Limits(max_workers=2))
    assert result.start == ("job-1",)
    assert {w.reason for w in result.waiting.values()} == {QueueReason.MAX_WORKERS}
    assert result.waiting["job-2"].detail == "2 of max_workers = 2 workers are live"


def test_a_provider_limit_lets_other_providers_pass_but_keeps_order_within_it() -> None:
    live = (Worker(CLAUDE, LEAD_A),)
    queue = [job(1), job(2, CODEX), job(3), job(4, CODEX)]
    result = plan(queue, Facts(live=live), Limits(per_provider=(("claude", 1), ("codex", 1))))
    assert result.start == ("job-2",)
    assert result.waiting["job-1"].reason is QueueReason.MAX_WORKERS_PER_PROVIDER
    assert result.waiting["job-3"].reason is QueueReason.MAX_WORKERS_PER_PROVIDER
    assert result.waiting["job-4"].reason is QueueReason.MAX_WORKERS_PER_PROVIDER
    assert "max_workers_per_provider.codex = 1" in result.waiting["job-4"].detail


def test_a_lead_limit_counts_each_lead_apart() -> None:
    live = (Worker(CLAUDE, LEAD_A), Worker(CLAUDE, LEAD_A))
    queue = [job(1, lead=LEAD_A), job(2, lead=LEAD_B), job(3, lead=LEAD_B)]
    result = plan(queue, Facts(live=live), Limits(per_lead=2))
    assert result.start == ("job-2", "job-3")
    assert result.waiting["job-1"].reason is QueueReason.MAX_WORKERS_PER_LEAD


def test_memory_counts_what_starting_workers_will_take() -> None:
    # 3,000 MB available, keep 2,000: one worker expected at 600 MB fits, a second does too,
    # a third would leave 1,200 MB.
    facts = Facts(available_mb=3000.0, estimate_mb={CLAUDE: 600.0})
    result = plan([job(1), job(2), job(3)], facts, Limits(min_available_mb=2000))
    assert result.start == ("job-1", "job-2")
    why = result.waiting["job-3"]
    assert why.reason is QueueReason.MEMORY
    assert why.detail.startswith("1,800 MB of memory available (3,000 MB less 1,200 MB")
    # A worker still starting elsewhere counts with what it is still expected to take.
    busy = Facts(available_mb=3000.0, live=(Worker(CODEX, LEAD_B, pending_mb=1500.0),))
    assert plan([job(1)], busy, Limits(min_available_mb=2000)).start == ()


def test_a_limited_account_waits_with_usage_limit_first() -> None:
    facts = Facts(limited={CODEX: AccountLimit(until=None, detail="five-hour limit")})
    result = plan([job(1, CODEX), job(2)], facts, Limits(max_workers=0))
    assert result.waiting["job-1"].reason is QueueReason.USAGE_LIMIT
    assert result.waiting["job-1"].detail == "codex: five-hour limit"
    assert result.waiting["job-2"].reason is QueueReason.MAX_WORKERS


def test_paced_jobs_start_only_within_their_slots() -> None:
    queue = [job(1, paced=True), job(2, paced=True), job(3)]
    result = plan(queue, Facts(paced_slots=1, pacing="1 at a time, 5 s apart"), Limits())
    assert result.start == ("job-1", "job-3")
    assert result.waiting["job-2"].reason is QueueReason.START_BURST
    assert "1 at a time, 5 s apart" in result.waiting["job-2"].detail


def test_messages_name_the_reason() -> None:
    why = plan([job(1)], Facts(), Limits(max_workers=0)).waiting["job-1"]
    assert waiting_message(why).startswith("Queued until admitted (max-workers): 0 of")
    assert refusal(why).startswith("the worker can't start now (max-workers: ")


providers = st.sampled_from([CLAUDE, CODEX, WorkerProvider.CURSOR])
leads = st.sampled_from([LEAD_A, LEAD_B, None])
workers = st.builds(Worker, providers, leads, st.sampled_from([0.0, 300.0]))
limits = st.builds(
    Limits,
    max_workers=st.none() | st.integers(0, 6),
    per_provider=st.sampled_from([(), (("claude", 2),), (("claude", 1), ("codex", 3))]),
    per_lead=st.none() | st.integers(0, 4),
    min_available_mb=st.none() | st.integers(0, 4000),
)


@given(
    st.lists(workers, max_size=6),
    st.lists(st.tuples(providers, leads), max_size=10),
    limits,
    st.floats(0, 8000),
)
def test_a_plan_never_breaks_a_limit_and_starts_jobs_in_queue_order(
    live: list[Worker],
    queued: list[tuple[WorkerProvider, SurfaceId | None]],
    lim: Limits,
    mb: float,
) -> None:
    queue = [Candidate(f"j{n}", p, lead) for n, (p, lead) in enumerate(queued)]
    facts = Facts(live=tuple(live), available_mb=mb, estimate_mb={CLAUDE: 500.0, CODEX: 200.0})
    result = plan(queue, facts, lim)
    ids = [c.job_id for c in queue]
    assert set(result.start) | set(result.waiting) == set(ids)
    assert not set(result.start) & set(result.waiting)
    assert list(result.start) == [i for i in ids if i in result.start]  # queue order
    started = [c for c in queue if c.job_id in result.start]
    everyone = [(w.provider, w.lead) for w in live] + [(c.provider, c.lead) for c in started]
    if started:  # a limit already broken by the live workers alone is not the plan's doing
        if lim.max_workers is not None:
            assert len(everyone) <= max(lim.max_workers, len(live))
        for provider in (CLAUDE, CODEX):
            most = lim.for_provider(provider)
            mine = [c for c in started if c.provider is provider]
            if most is not None and mine:
                assert sum(1 for p, _ in everyone if p is provider) <= most
        if lim.min_available_mb is not None:
            pending = sum(w.pending_mb for w in live) + sum(
                facts.estimate(c.provider) for c in started[:-1]
            )
            assert mb - pending >= lim.min_available_mb
    # Jobs that wait for the same global thing start in order: nothing after a job that waits
    # for max-workers or memory starts.
    for n, c in enumerate(queue):
        why = result.waiting.get(c.job_id)
        if why is not None and why.reason in (QueueReason.MAX_WORKERS, QueueReason.MEMORY):
            assert not any(later.job_id in result.start for later in queue[n + 1 :])
