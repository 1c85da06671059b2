"""Subagent-aware Codex runs, in the order codex-cli 0.171.0 sent its hooks for a subagent
started with ``spawn_agent`` (tests/realagents/test_codex_subagent.py drives the real CLI).

The parent turn's ``PostToolUse`` of ``spawn_agent`` names the subagent; the subagent's thread
then fires ``SubagentStart``, its own ``UserPromptSubmit`` (the parent's session, a turn id of
its own) and, after the parent's ``Stop``, ``SubagentStop``. The parent's run must stay open
until then, end ``succeeded`` with the parent's answer, and no turn of the subagent's may
become a run.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState, WorkerProvider
from mytty.core.ids import JobId
from mytty.core.jobs.tracker import AgentJobState, new_job, reconcile
from mytty.core.runs.book import RunBook, replay
from mytty.core.runs.subagents import (
    CODEX_SPAWN_TOOL,
    CODEX_SUBAGENT_PREFIX,
    PROMPT_HOOK_NAME,
    SUBAGENT_START_HOOK_NAME,
    SUBAGENT_STOP_HOOK_NAME,
)
from tests.core.builders import CODEX, PANE, R, ev
from tests.core.runs.test_subagent_runs import check_replay_and_snapshots, restored_from

K = AgentEventKind
S = AgentRunState
PARENT = R("parent-turn")
SUB_TURN = R("subagent-turn")
AGENT = CODEX_SUBAGENT_PREFIX + "01a23246-3eb6-7333-bc67-b0886450ad25"
ANSWER = "Tool finished: spawned Zeno"


def spawn(at: float = 2.0, agent: str = AGENT) -> AgentEvent:
    return ev(
        K.RUNNING,
        run=PARENT,
        provider=CODEX,
        at=at,
        hook="PostToolUse",
        tool=CODEX_SPAWN_TOOL,
        tool_use=agent,
    )


def sub(hook: str, at: float, kind: AgentEventKind = K.RUNNING) -> AgentEvent:
    return ev(kind, run=SUB_TURN, provider=CODEX, at=at, hook=hook, tool_use=AGENT)


def parent(kind: AgentEventKind, hook: str, at: float) -> AgentEvent:
    answer = ANSWER if kind is K.SUCCEEDED else None
    return ev(kind, run=PARENT, provider=CODEX, at=at, hook=hook, answer=answer)


def captured() -> list[AgentEvent]:
    """codex-cli 0.171.0's hooks for one spawn_agent, in the order they arrived."""
    return [
        parent(K.STARTED, PROMPT_HOOK_NAME, 1.0),
        spawn(),
        sub(SUBAGENT_START_HOOK_NAME, 3.0),
        sub(PROMPT_HOOK_NAME, 3.1),
        parent(K.SUCCEEDED, "Stop", 3.2),
        sub(SUBAGENT_STOP_HOOK_NAME, 8.0),
    ]


def test_the_parent_turn_waits_for_its_subagent_and_ends_with_its_own_answer() -> None:
    book = RunBook()
    log = captured()
    for event in log[:4]:
        book.apply(event)
    run = book.get(PARENT)
    assert run is not None and run.state is S.RUNNING and run.live_subagent_count == 1
    assert book.get(SUB_TURN) is None  # the subagent's prompt is no run of its own
    book.apply(log[4])  # the parent's Stop, the subagent still working
    run = book.get(PARENT)
    assert run is not None and run.state is S.RUNNING and run.root_ended
    assert run.message == "Waiting for 1 subagent"
    book.apply(log[5])
    run = book.get(PARENT)
    assert run is not None and run.state is S.SUCCEEDED and run.live_subagent_count == 0
    assert run.last_assistant_message == ANSWER
    assert [r.id for r in book.all_runs()] == [PARENT]


def test_the_job_stays_running_until_the_subagent_stops() -> None:
    job = new_job(JobId("J"), PANE, WorkerProvider.CODEX, None, (), now=0.0)
    book = RunBook()
    states = []
    for event in captured():
        book.apply(event)
        job = reconcile(job, book.runs_for(PANE, CODEX), pane_exists=True, now=event.occurred_at)
        states.append(job.state)
    assert states[:-1] == [AgentJobState.RUNNING] * 5
    assert states[-1] is AgentJobState.SUCCEEDED and job.run_id == PARENT


def test_a_subagent_event_that_cannot_be_placed_is_no_run_and_holds_nothing() -> None:
    """Without a session to place it by (and before the spawn's result names it), a
    subagent's event is dropped; as its start was missed, the parent's Stop ends the turn."""
    book = replay(
        [
            parent(K.STARTED, PROMPT_HOOK_NAME, 1.0),
            sub(SUBAGENT_START_HOOK_NAME, 1.5),
            sub(PROMPT_HOOK_NAME, 1.6),
            spawn(at=2.0),
            parent(K.SUCCEEDED, "Stop", 3.0),
            sub(SUBAGENT_STOP_HOOK_NAME, 8.0),
        ]
    )
    assert [(r.id, r.state) for r in book.all_runs()] == [(PARENT, S.SUCCEEDED)]


def test_without_the_subagent_hooks_the_parent_ends_at_its_stop() -> None:
    """An install from before mytty installed SubagentStart/SubagentStop: nothing would ever
    report the subagent's end, so the spawn alone must not hold the turn open."""
    book = replay(
        [
            parent(K.STARTED, PROMPT_HOOK_NAME, 1.0),
            spawn(),
            sub(PROMPT_HOOK_NAME, 3.1),
            parent(K.SUCCEEDED, "Stop", 3.2),
        ]
    )
    run = book.get(PARENT)
    assert run is not None and run.state is S.SUCCEEDED and book.get(SUB_TURN) is None


def test_a_subagent_asking_for_approval_puts_the_parent_turn_there() -> None:
    """The human answers a subagent's dialog in the same pane: the parent's run shows it."""
    book = RunBook()
    for event in captured()[:5]:
        book.apply(event)
    book.apply(sub("PermissionRequest", 4.0, K.APPROVAL_REQUESTED))
    run = book.get(PARENT)
    assert run is not None and run.state is S.WAITING_APPROVAL
    book.apply(sub("PostToolUse", 5.0))
    book.apply(sub(SUBAGENT_STOP_HOOK_NAME, 6.0))
    run = book.get(PARENT)
    assert run is not None and run.state is S.SUCCEEDED
    assert run.last_assistant_message == ANSWER


def test_two_subagents_end_the_turn_at_the_last_stop() -> None:
    other = CODEX_SUBAGENT_PREFIX + "second"
    book = RunBook()
    log = [
        parent(K.STARTED, PROMPT_HOOK_NAME, 1.0),
        spawn(at=2.0),
        spawn(at=2.1, agent=other),
        sub(SUBAGENT_START_HOOK_NAME, 3.0),
        ev(
            K.RUNNING,
            run=R("t2"),
            provider=CODEX,
            at=3.1,
            hook=SUBAGENT_START_HOOK_NAME,
            tool_use=other,
        ),
        parent(K.SUCCEEDED, "Stop", 4.0),
        sub(SUBAGENT_STOP_HOOK_NAME, 5.0),
    ]
    for event in log:
        book.apply(event)
    run = book.get(PARENT)
    assert run is not None and run.state is S.RUNNING and run.message == "Waiting for 1 subagent"
    book.apply(
        ev(
            K.RUNNING,
            run=R("t2"),
            provider=CODEX,
            at=6.0,
            hook=SUBAGENT_STOP_HOOK_NAME,
            tool_use=other,
        )
    )
    run = book.get(PARENT)
    assert run is not None and run.state is S.SUCCEEDED


def test_snapshots_keep_a_turn_that_waits_for_its_subagent() -> None:
    log = captured()
    whole = replay(log)
    for cut in range(len(log) + 1):
        assert restored_from(log, cut).all_runs() == whole.all_runs()


RUNS = [PARENT, SUB_TURN, R("third")]
AGENTS = [AGENT, CODEX_SUBAGENT_PREFIX + "b", "call_1"]
HOOKS = [PROMPT_HOOK_NAME, SUBAGENT_START_HOOK_NAME, SUBAGENT_STOP_HOOK_NAME, "Stop", "PostToolUse"]
codex_event = st.builds(
    lambda kind, run, hook, agent, tool, session, at: ev(
        kind, run=run, provider=CODEX, hook=hook, tool_use=agent, tool=tool, session=session, at=at
    ),
    st.sampled_from(list(AgentEventKind)),
    st.sampled_from(RUNS),
    st.sampled_from(HOOKS),
    st.sampled_from([None, *AGENTS]),
    st.sampled_from([None, CODEX_SPAWN_TOOL]),
    st.sampled_from([None, "s1", "s2"]),
    st.integers(0, 100).map(float),
)


@settings(max_examples=300)
@given(st.lists(codex_event, max_size=30), st.integers(0, 30))
def test_replay_and_snapshots_agree_with_codex_subagent_events(
    events: list[AgentEvent], cut: int
) -> None:
    check_replay_and_snapshots(events, cut)
    for run in replay(events).all_runs():
        assert all(a.startswith(CODEX_SUBAGENT_PREFIX) for a in run.subagents)
