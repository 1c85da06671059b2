"""Attention items: which events create them, what resolves them, and how long they stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.attention.items import (
    LONG_RUN_SECONDS,
    AttentionBook,
    AttentionItem,
    AttentionKind,
)
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState
from mytty.core.ids import JobId, RunId
from mytty.core.runs.book import RunBook
from mytty.core.runs.synthesized import startup_sweep_events
from tests.core.builders import CLAUDE, CODEX, DAY, PANE, RUN, U, ev

K = AgentEventKind
A = AttentionKind


class Feed:
    """A run book and an attention book fed together, like the daemon does."""

    def __init__(self) -> None:
        self.runs = RunBook()
        self.attention = AttentionBook()

    def __call__(self, kind: AgentEventKind, **kwargs: object) -> AgentEvent:
        event = ev(kind, **kwargs)  # type: ignore[arg-type]
        self.send(event)
        return event

    def send(self, event: AgentEvent) -> AttentionItem | None:
        return self.attention.observe(event, self.runs.apply(event))


@pytest.mark.parametrize(
    ("kind", "item_kind"),
    [
        (K.APPROVAL_REQUESTED, A.APPROVAL_REQUEST),
        (K.INPUT_REQUESTED, A.INPUT_REQUEST),
        (K.FAILED, A.FAILURE),
        (K.DISCONNECTED, A.DISCONNECT),
    ],
)
def test_items_created_from_applied_events(kind: AgentEventKind, item_kind: AttentionKind) -> None:
    feed = Feed()
    feed(K.STARTED, at=1.0)
    event = ev(kind, at=2.0, message="look", provider=CLAUDE)
    created = feed.send(event)
    assert created == AttentionItem(
        id=event.id,
        surface_id=PANE,
        run_id=RUN,
        provider=CLAUDE,
        kind=item_kind,
        message="look",
        created_at=2.0,
    )
    assert created is not None and created.actionable
    assert feed.attention.items(2.0) == [created]


@pytest.mark.parametrize("kind", [K.IDLE, K.STARTED, K.RUNNING])
def test_lifecycle_kinds_create_nothing(kind: AgentEventKind) -> None:
    feed = Feed()
    feed(K.STARTED, at=1.0)
    feed(K.APPROVAL_REQUESTED, at=2.0)  # so running is applied, too
    before = feed.attention.items(3.0)
    assert feed.send(ev(kind, at=3.0)) is None
    assert [i.id for i in feed.attention.items(3.0)] == [i.id for i in before]


def test_events_that_are_not_applied_create_nothing() -> None:
    feed = Feed()
    assert feed.send(ev(K.APPROVAL_REQUESTED, at=1.0)) is None  # unknown run: ignored
    assert feed.send(ev(K.FAILED, at=1.0)) is None
    started = feed(K.STARTED, at=2.0)
    conflicting = ev(K.FAILED, at=3.0, provider=CODEX)
    assert feed.send(conflicting) is None
    failure = ev(K.FAILED, at=4.0)
    assert feed.send(failure) is not None
    assert feed.send(failure) is None  # duplicate
    assert feed.send(ev(K.FAILED, at=5.0, eid=started.id)) is None
    assert [i.id for i in feed.attention.items(10.0)] == [failure.id]


@pytest.mark.parametrize(
    ("duration", "expect_item"),
    [(0.0, False), (LONG_RUN_SECONDS - 0.001, False), (LONG_RUN_SECONDS, True), (3600.0, True)],
)
def test_completion_only_for_runs_of_five_minutes_or_more(
    duration: float, expect_item: bool
) -> None:
    assert LONG_RUN_SECONDS == 300.0
    feed = Feed()
    feed(K.STARTED, at=1000.0)
    feed(K.APPROVAL_REQUESTED, at=1001.0)
    feed(K.RUNNING, at=1002.0)
    success = ev(K.SUCCEEDED, at=1000.0 + duration, message="done")
    item = feed.send(success)
    if expect_item:
        assert item is not None and item.kind == A.COMPLETION and item.id == success.id
        assert item.message == "done" and item.created_at == 1000.0 + duration
    else:
        assert item is None


def test_completion_duration_counts_from_the_latest_restart() -> None:
    feed = Feed()
    feed(K.STARTED, at=0.0)
    feed(K.SUCCEEDED, at=1000.0)  # long: completion
    feed(K.IDLE, at=1001.0)
    feed(K.STARTED, at=1100.0)
    assert feed.send(ev(K.SUCCEEDED, at=1200.0)) is None  # 100 s since the restart


def test_disconnect_item_only_when_the_run_was_active() -> None:
    feed = Feed()
    assert feed.send(ev(K.DISCONNECTED, run=U("fresh"), at=1.0)) is None
    feed(K.IDLE, run=U("marker"), at=1.0)
    assert feed.send(ev(K.DISCONNECTED, run=U("marker"), at=2.0)) is None
    feed(K.STARTED, run=U("short"), at=1.0)
    feed(K.SUCCEEDED, run=U("short"), at=2.0)
    assert feed.send(ev(K.DISCONNECTED, run=U("short"), at=3.0)) is None
    feed(K.STARTED, at=1.0)
    feed(K.INPUT_REQUESTED, at=2.0)
    item = feed.send(ev(K.DISCONNECTED, at=3.0))
    assert item is not None and item.kind == A.DISCONNECT


def test_request_resolved_by_next_applied_event_after_waiting() -> None:
    feed = Feed()
    feed(K.STARTED, at=1.0)
    request = feed(K.APPROVAL_REQUESTED, at=2.0)
    feed(K.STARTED, at=3.0)  # ignored on a waiting run: resolves nothing
    feed(K.RUNNING, run=U("other-run"), at=3.5)  # a different run: resolves nothing
    item = feed.attention.get(request.id)
    assert item is not None and item.actionable
    feed(K.RUNNING, at=4.0)
    item = feed.attention.get(request.id)
    assert item is not None and item.resolved_at == 4.0 and not item.actionable
    feed(K.INPUT_REQUESTED, at=5.0)
    second = feed(K.IDLE, at=6.0)  # any applied event from waiting-* resolves
    resolved = [i for i in feed.attention.items(6.0) if i.kind == A.INPUT_REQUEST]
    assert [i.resolved_at for i in resolved] == [second.occurred_at]


def test_request_resolved_and_disconnect_created_by_one_event() -> None:
    feed = Feed()
    feed(K.STARTED, at=1.0)
    request = feed(K.APPROVAL_REQUESTED, at=2.0)
    disconnect = feed(K.DISCONNECTED, at=3.0)
    items = {i.id: i for i in feed.attention.items(3.0)}
    assert items[request.id].resolved_at == 3.0
    assert items[disconnect.id].kind == A.DISCONNECT and items[disconnect.id].actionable


def test_outcome_items_resolved_when_a_run_starts_on_the_same_pane() -> None:
    feed = Feed()
    feed(K.STARTED, run=U("a"), at=1.0)
    failure = feed(K.FAILED, run=U("a"), at=2.0)
    feed(K.STARTED, run=U("b"), at=3.0)
    long_success = feed(K.SUCCEEDED, run=U("b"), at=400.0)
    feed(K.STARTED, run=U("c"), at=401.0)
    lost = feed(K.DISCONNECTED, run=U("c"), at=402.0)
    by_id = {i.id: i for i in feed.attention.items(500.0)}
    assert by_id[failure.id].resolved_at == 3.0
    assert by_id[long_success.id].resolved_at == 401.0
    assert by_id[lost.id].actionable

    feed(K.STARTED, run=U("elsewhere"), pane=U("pane2"), at=500.0)
    feed(K.RUNNING, run=U("c"), at=501.0)  # disconnected ignores running: nothing starts
    item = feed.attention.get(lost.id)
    assert item is not None and item.actionable
    feed(K.IDLE, run=U("c"), at=502.0)
    feed(K.RUNNING, run=U("c"), provider=CLAUDE, at=503.0)  # the same run restarting counts
    item = feed.attention.get(lost.id)
    assert item is not None and item.resolved_at == 503.0


def test_a_run_starting_on_another_provider_also_resolves() -> None:
    feed = Feed()
    feed(K.STARTED, at=1.0)
    failure = feed(K.FAILED, at=2.0)
    feed(K.STARTED, run=U("codex-run"), provider=CODEX, at=5.0)
    item = feed.attention.get(failure.id)
    assert item is not None and item.resolved_at == 5.0


def test_acknowledge_first_time_wins() -> None:
    feed = Feed()
    feed(K.STARTED, at=1.0)
    failure = feed(K.FAILED, at=2.0)
    assert feed.attention.acknowledge(failure.id, 10.0)
    assert not feed.attention.acknowledge(failure.id, 20.0)
    assert not feed.attention.acknowledge(U("no-such-item"), 20.0)
    item = feed.attention.get(failure.id)
    assert item is not None and item.acknowledged_at == 10.0 and not item.actionable
    assert feed.attention.anchors_for_run(RUN) == [10.0]


def test_retention_counts_from_the_earlier_of_resolution_and_acknowledgement() -> None:
    feed = Feed()
    feed(K.STARTED, at=0.0)
    request = feed(K.APPROVAL_REQUESTED, at=1.0)
    feed(K.RUNNING, at=100.0)  # resolved at 100
    feed.attention.acknowledge(request.id, 5000.0)
    failure = feed(K.FAILED, at=200.0)
    feed.attention.acknowledge(failure.id, 300.0)
    item = feed.attention.get(request.id)
    assert item is not None and item.retention_anchor == 100.0

    assert {i.id for i in feed.attention.items(100.0 + DAY)} == {request.id, failure.id}
    assert [i.id for i in feed.attention.items(100.0 + DAY + 1)] == [failure.id]
    assert feed.attention.prune(100.0 + DAY) == []
    assert feed.attention.prune(300.0 + DAY + 1) == [request.id, failure.id]
    assert len(feed.attention) == 0
    assert not feed.attention.actionable_for_run(RUN)


def test_actionable_items_are_never_pruned() -> None:
    feed = Feed()
    feed(K.STARTED, at=0.0)
    failure = feed(K.FAILED, at=1.0)
    assert feed.attention.prune(100 * DAY) == []
    assert [i.id for i in feed.attention.items(100 * DAY)] == [failure.id]
    assert feed.attention.actionable_for_run(RUN)
    assert feed.attention.anchors_for_run(RUN) == []


def test_items_sorted_by_created_at_then_id_descending() -> None:
    feed = Feed()
    ids = sorted(U(f"same-time-{i}") for i in range(3))
    for n, event_id in enumerate(ids):
        feed(K.STARTED, run=U(f"r{n}"), pane=U(f"p{n}"), at=0.0)
        feed.send(ev(K.FAILED, run=U(f"r{n}"), pane=U(f"p{n}"), at=5.0, eid=event_id))
    feed(K.STARTED, run=U("late"), pane=U("p-late"), at=0.0)
    late = feed(K.FAILED, run=U("late"), pane=U("p-late"), at=9.0)
    feed(K.STARTED, run=U("early"), pane=U("p-early"), at=0.0)
    early = feed(K.FAILED, run=U("early"), pane=U("p-early"), at=1.0)
    assert [i.id for i in feed.attention.items(10.0)] == [late.id, *reversed(ids), early.id]


def test_acknowledge_completions_before_launch() -> None:
    feed = Feed()
    feed(K.STARTED, run=U("a"), pane=U("pa"), at=0.0)
    old = feed(K.SUCCEEDED, run=U("a"), pane=U("pa"), at=400.0)
    feed(K.STARTED, run=U("b"), pane=U("pb"), at=1000.0)
    new = feed(K.SUCCEEDED, run=U("b"), pane=U("pb"), at=1400.0)
    feed(K.STARTED, run=U("c"), pane=U("pc"), at=0.0)
    failure = feed(K.FAILED, run=U("c"), pane=U("pc"), at=1.0)
    assert feed.attention.acknowledge_completions(before=1000.0, now=2000.0) == [old.id]
    item = feed.attention.get(old.id)
    assert item is not None and item.acknowledged_at == 2000.0
    for untouched in (new.id, failure.id):
        other = feed.attention.get(untouched)
        assert other is not None and other.actionable


def test_forget_run_drops_its_items_only() -> None:
    feed = Feed()
    feed(K.STARTED, at=0.0)
    feed(K.APPROVAL_REQUESTED, at=1.0)
    feed(K.STARTED, run=U("other"), pane=U("p2"), at=0.0)
    kept = feed(K.FAILED, run=U("other"), pane=U("p2"), at=1.0)
    feed.attention.forget_run(RUN)
    assert [i.id for i in feed.attention.items(2.0)] == [kept.id]
    assert not feed.attention.actionable_for_run(RUN)
    feed(K.RUNNING, at=3.0)  # must not trip over the forgotten request
    assert [i.id for i in feed.attention.items(3.0)] == [kept.id]


def test_startup_sweep_creates_disconnect_items() -> None:
    feed = Feed()
    feed(K.STARTED, at=0.0)
    feed(K.INPUT_REQUESTED, at=1.0)
    (sweep,) = startup_sweep_events(feed.runs, 50.0, lambda run: True)
    item = feed.send(sweep)
    assert item is not None and item.kind == A.DISCONNECT and item.id == sweep.id
    assert [i.kind for i in feed.attention.items(50.0)] == [A.DISCONNECT, A.INPUT_REQUEST]


# --- properties -------------------------------------------------------------------------------

RUN_POOL = [U(f"prop-run-{i}") for i in range(3)]
PANE_POOL = [U(f"prop-pane-{i}") for i in range(2)]
ID_POOL = [U(f"prop-event-{i}") for i in range(30)]

event_strategy = st.builds(
    AgentEvent,
    id=st.sampled_from(ID_POOL),
    run_id=st.sampled_from(RUN_POOL),
    surface_id=st.sampled_from(PANE_POOL),
    provider=st.sampled_from([CLAUDE, CODEX]),
    kind=st.sampled_from(list(AgentEventKind)),
    occurred_at=st.integers(0, 2000).map(float),
    message=st.sampled_from([None, "m"]),
)


@settings(max_examples=200)
@given(st.lists(event_strategy, max_size=50), st.lists(st.sampled_from(ID_POOL), max_size=5))
def test_attention_is_consistent_on_random_sequences(
    events: list[AgentEvent], acks: list[str]
) -> None:
    feed = Feed()
    applied_ids: set[str] = set()
    for event in events:
        result = feed.runs.apply(event)
        if result.applied:
            applied_ids.add(event.id)
        feed.attention.observe(event, result)
    for n, item_id in enumerate(acks):
        feed.attention.acknowledge(item_id, 3000.0 + n)
    items = feed.attention.items(0.0)
    assert {i.id for i in items} <= applied_ids
    assert items == sorted(items, key=lambda i: (i.created_at, i.id), reverse=True)
    for item in items:
        run = feed.runs.get(item.run_id)
        assert run is not None and run.surface_id == item.surface_id
        assert feed.attention.actionable_for_run(item.run_id) == any(
            i.actionable for i in items if i.run_id == item.run_id
        )
        if item.kind in (A.APPROVAL_REQUEST, A.INPUT_REQUEST) and item.actionable:
            assert run.state in (AgentRunState.WAITING_APPROVAL, AgentRunState.WAITING_INPUT)

    again = Feed()
    for event in events + events:
        again.send(event)
    for n, item_id in enumerate(acks):
        again.attention.acknowledge(item_id, 3000.0 + n)
    assert again.attention.items(0.0) == items
    retired = {i.id for i in items if not i.actionable}
    assert set(feed.attention.prune(10.0**9)) == retired
    assert list(feed.attention.items(10.0**9)) == [i for i in items if i.actionable]


def test_a_launch_failed_job_is_an_item_keyed_by_the_job() -> None:
    feed = Feed()
    job = JobId(U("job"))
    item = feed.attention.add_launch_failure(job, PANE, CODEX, "No codex run was observed", 40.0)
    assert item is not None
    assert (item.id, item.run_id, item.surface_id, item.kind) == (
        job,
        RunId(job),
        PANE,
        A.LAUNCH_FAILURE,
    )
    assert item.message == "No codex run was observed" and item.actionable
    assert feed.attention.add_launch_failure(job, PANE, CODEX, "again", 41.0) is None
    assert [i.id for i in feed.attention.items(50.0)] == [job]
    # Like a failure: resolved once a run starts on that pane.
    feed(K.STARTED, run=U("retry"), pane=U("other pane"), at=60.0)
    assert feed.attention.get(job).actionable  # type: ignore[union-attr]
    feed(K.STARTED, run=U("retry here"), at=61.0)
    assert feed.attention.get(job).resolved_at == 61.0  # type: ignore[union-attr]
    assert feed.attention.acknowledge(job, 62.0)
    assert feed.attention.prune(62.0 + DAY + 1) == [job]
