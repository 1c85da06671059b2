"""Subagent-aware Claude runs: SubagentStart/Stop bookkeeping and task-notification turns.

The sequences are the ones Claude Code 2.1.332 produced (real-agents.md §2.3): an async subagent
gives one human prompt two UserPromptSubmit (the second a synthetic ``<task-notification>`` with
its own prompt id) and two Stop. The second turn must continue the first, not supersede it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.attention.items import AttentionBook
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState, WorkerProvider
from mytty.core.ids import JobId
from mytty.core.jobs.tracker import AgentJobState, new_job, reconcile
from mytty.core.runs.book import RunBook, replay
from mytty.core.runs.prune import prune_runs
from mytty.core.runs.snapshot import decode_snapshot, encode_snapshot
from mytty.core.runs.subagents import (
    PROMPT_HOOK_NAME,
    SUBAGENT_START_HOOK_NAME,
    SUBAGENT_STOP_HOOK_NAME,
)
from mytty.core.runs.synthesized import superseded_events
from tests.core.builders import CLAUDE, CODEX, DAY, PANE, P, R, ev

K = AgentEventKind
S = AgentRunState
ROOT = R("root-prompt")
NOTE = R("notification-prompt")
AGENT = "ab1c1e419d93f1ea1"


def start_sub(run: str = ROOT, agent: str = AGENT, at: float = 2.0) -> AgentEvent:
    return ev(K.RUNNING, run=run, at=at, hook=SUBAGENT_START_HOOK_NAME, tool_use=agent)


def stop_sub(run: str = ROOT, agent: str = AGENT, at: float = 5.0) -> AgentEvent:
    return ev(K.RUNNING, run=run, at=at, hook=SUBAGENT_STOP_HOOK_NAME, tool_use=agent)


def notification(run: str = NOTE, agent: str = AGENT, at: float = 6.0) -> AgentEvent:
    return ev(K.RUNNING, run=run, at=at, hook=PROMPT_HOOK_NAME, tool_use=agent)


def delayed_subagent_log() -> list[AgentEvent]:
    """What the real CLI sent for a subagent that outlived its parent's first Stop."""
    return [
        ev(K.STARTED, run=ROOT, at=1.0, hook=PROMPT_HOOK_NAME),
        start_sub(),
        ev(K.RUNNING, run=ROOT, at=3.0, hook="PostToolBatch"),
        ev(K.RUNNING, run=ROOT, at=4.0, hook="Stop", message="Waiting for 1 background agent"),
        stop_sub(),
        notification(),
        ev(K.SUCCEEDED, run=NOTE, at=7.0, hook="Stop"),
    ]


def test_the_task_notification_turn_continues_the_root_run() -> None:
    book = RunBook()
    log = delayed_subagent_log()
    for event in log[:2]:
        book.apply(event)
    root = book.get(ROOT)
    assert root is not None and root.live_subagent_count == 1
    for event in log[2:5]:
        book.apply(event)
    root = book.get(ROOT)
    assert root is not None and root.state is S.RUNNING and root.live_subagent_count == 0

    note = log[5]
    assert superseded_events(book, note) == []  # a running event never supersedes
    result = book.apply(note)
    assert result.run is not None and result.run.id == ROOT
    assert book.get(NOTE) is None
    assert book.get(ROOT) is not None and book.get(ROOT).state is S.RUNNING  # type: ignore[union-attr]

    final = book.apply(log[6])  # the second Stop, under the notification's own prompt id
    assert final.applied and final.run is not None and final.run.id == ROOT
    assert final.run.state is S.SUCCEEDED
    assert [run.id for run in book.all_runs()] == [ROOT]
    assert set(book.event_ids_for_run(ROOT)) == {e.id for e in log}


def test_a_stop_while_a_subagent_is_live_keeps_the_run_running() -> None:
    book = replay(
        [
            ev(K.STARTED, run=ROOT, at=1.0),
            start_sub(),
            ev(K.SUCCEEDED, run=ROOT, at=3.0, hook="Stop"),
        ]
    )
    root = book.get(ROOT)
    assert root is not None and root.state is S.RUNNING and root.live_subagent_count == 1
    book.apply(stop_sub(at=4.0))
    book.apply(ev(K.SUCCEEDED, run=ROOT, at=5.0, hook="Stop"))
    root = book.get(ROOT)
    assert root is not None and root.state is S.SUCCEEDED and root.live_subagent_count == 0


def test_a_task_notification_also_ends_its_subagent() -> None:
    # A SubagentStop that never arrived must not hold the run forever.
    book = replay([ev(K.STARTED, run=ROOT, at=1.0), start_sub(), notification()])
    root = book.get(ROOT)
    assert root is not None and root.live_subagent_count == 0 and root.continuations == {NOTE}


def test_a_subagent_that_finished_before_the_stop_does_not_hold_the_run() -> None:
    # The order of the captured sample: SubagentStop, then Stop with no background tasks.
    book = replay(
        [
            ev(K.STARTED, run=ROOT, at=1.0),
            start_sub(),
            stop_sub(at=3.0),
            ev(K.SUCCEEDED, run=ROOT, at=4.0, hook="Stop"),
            notification(at=5.0),
            ev(K.SUCCEEDED, run=NOTE, at=6.0, hook="Stop"),
        ]
    )
    root = book.get(ROOT)
    assert root is not None and root.state is S.SUCCEEDED and root.updated_at == 4.0
    assert book.get(NOTE) is None


def test_a_notification_for_an_unknown_task_is_a_run_of_its_own() -> None:
    book = replay([ev(K.STARTED, run=ROOT, at=1.0), start_sub(), notification(agent="other")])
    note = book.get(NOTE)
    assert note is not None and note.state is S.RUNNING
    assert book.get(ROOT) is not None and book.get(ROOT).continuations == frozenset()  # type: ignore[union-attr]


def test_a_notification_on_another_pane_is_not_folded_in() -> None:
    other = ev(K.RUNNING, run=NOTE, pane=P("elsewhere"), hook=PROMPT_HOOK_NAME, tool_use=AGENT)
    book = replay([ev(K.STARTED, run=ROOT, at=1.0), start_sub(), other])
    assert book.get(NOTE) is not None


def test_subagent_events_are_claude_only() -> None:
    book = replay(
        [
            ev(K.STARTED, run=ROOT, provider=CODEX),
            ev(K.RUNNING, run=ROOT, provider=CODEX, hook=SUBAGENT_START_HOOK_NAME, tool_use="a"),
        ]
    )
    assert book.get(ROOT) is not None and book.get(ROOT).live_subagent_count == 0  # type: ignore[union-attr]


def test_the_job_stays_running_until_the_final_stop() -> None:
    job = new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, None, (), now=0.0)
    book = RunBook()
    states = []
    for event in delayed_subagent_log():
        book.apply(event)
        job = reconcile(job, book.runs_for(PANE, CLAUDE), pane_exists=True, now=event.occurred_at)
        states.append(job.state)
    assert states[:-1] == [AgentJobState.RUNNING] * 6
    assert states[-1] is AgentJobState.SUCCEEDED and job.run_id == ROOT


def restored_from(events: list[AgentEvent], cut: int) -> RunBook:
    """A book restored from a snapshot of ``events[:cut]``, then fed the rest."""
    book = RunBook()
    snapshot = decode_snapshot(encode_snapshot(replay(events[:cut]).all_runs(), []))
    assert snapshot is not None
    for run in snapshot.runs:
        book.restore(run)
    for event in events[cut:]:
        book.apply(event)
    return book


def test_snapshot_keeps_subagents_and_continuations() -> None:
    log = delayed_subagent_log()
    whole = replay(log)
    for cut in range(len(log) + 1):
        assert restored_from(log, cut).all_runs() == whole.all_runs()


def test_prune_also_deletes_the_folded_in_turns_events() -> None:
    book = replay(delayed_subagent_log())
    pruned = prune_runs(book, AttentionBook(), now=10 * DAY)
    assert set(pruned) == {ROOT, NOTE}
    assert book.get(ROOT) is None
    # Forgotten with the root: a late event of the notification turn is a run of its own.
    book.apply(ev(K.RUNNING, run=NOTE, at=10 * DAY))
    assert book.get(NOTE) is not None


RUNS = [ROOT, NOTE, R("third")]
AGENTS = ["a1", "a2"]
HOOKS = [None, PROMPT_HOOK_NAME, SUBAGENT_START_HOOK_NAME, SUBAGENT_STOP_HOOK_NAME, "Stop"]
subagent_event = st.builds(
    lambda kind, run, hook, agent, at: ev(kind, run=run, hook=hook, tool_use=agent, at=at),
    st.sampled_from(list(AgentEventKind)),
    st.sampled_from(RUNS),
    st.sampled_from(HOOKS),
    st.sampled_from([None, *AGENTS]),
    st.integers(0, 100).map(float),
)


@settings(max_examples=200)
@given(st.lists(subagent_event, max_size=30), st.integers(0, 30))
def test_replay_and_snapshots_agree_with_subagent_events(
    events: list[AgentEvent], cut: int
) -> None:
    check_replay_and_snapshots(events, cut)


def check_replay_and_snapshots(events: list[AgentEvent], cut: int) -> None:
    """Replaying twice, and restoring a snapshot at ``cut`` then replaying the rest, give the
    same runs as one replay; no run finishes with a live subagent."""
    whole = replay(events)
    assert replay(events + events).all_runs() == whole.all_runs()
    assert restored_from(events, cut).all_runs() == whole.all_runs()
    for run in whole.all_runs():
        assert run.live_subagents <= run.subagents
        assert run.id not in run.continuations
        # A Stop never finishes a run while one of its subagents is live.
        if run.live_subagents:
            assert run.state is not S.SUCCEEDED
