"""The board made from a snapshot: which panes are agents, grouping by session, what needs a
person first, questions and approvals."""

from __future__ import annotations

from mytty.web import board as board_mod
from mytty.web.control import Place, Snapshot
from tests.web.conftest import JOB_A, PANE_A, PANE_B, RUN_A, START, job, pane

PANE_C = "44444444-4444-4444-8444-444444444444"
PANE_D = "55555555-5555-4555-8555-555555555555"


def question(pane_id: str, run: str, *, resolved: str | None = None) -> dict[str, object]:
    return {"paneID": pane_id, "runID": run, "provider": "claude-code", "kind": "input-request",
            "message": "Which one?", "createdAt": "2027-01-15T08:00:00Z", "resolvedAt": resolved,
            "location": None, "label": None}  # fmt: skip


def test_agents_by_session_with_the_ones_that_need_a_person_first() -> None:
    snapshot = Snapshot(
        panes=[
            pane(PANE_A, provider="codex", agentState="running"),
            pane(PANE_B, provider="claude-code", agentState="running"),
            pane(PANE_C, command="bash"),  # a plain shell
            pane(PANE_D, provider="cursor", agentState="failed", windowID="$2"),
        ],
        jobs=[
            job("B0000000-0000-4000-8000-000000000000", PANE_B, "succeeded"),
            job(JOB_A, PANE_B, "waiting-approval", label="newest", usage={"totalTokens": 1234},
                costUsd=0.5),
        ],
        places={
            PANE_A: Place("mytty:1.0", "mytty", START),
            PANE_B: Place("mytty:1.1", "mytty", START - 60),
        },
    )  # fmt: skip
    board = board_mod.build(snapshot)
    assert [g.session for g in board.groups] == ["mytty", "session $2"]
    mytty, other = board.groups
    assert [a.pane_id for a in mytty.agents] == [PANE_B, PANE_A]  # the approval first
    first = mytty.agents[0]
    assert (first.job_id, first.state, first.label, first.need) == (
        JOB_A,
        "waiting-approval",
        "newest",
        "approval",
    )
    assert (first.tokens, first.cost_usd, first.location) == (1234, 0.5, "mytty:1.1")
    assert other.agents[0].need == "failure"
    assert board.agent_count == 3 and board.waiting_count == 2


def test_a_group_with_a_need_comes_before_calm_ones() -> None:
    snapshot = Snapshot(
        panes=[pane(PANE_A, provider="codex", agentState="running", windowID="$1"),
               pane(PANE_B, provider="codex", agentState="waiting-input", windowID="$9")],
    )  # fmt: skip
    assert [g.session for g in board_mod.build(snapshot).groups] == ["session $9", "session $1"]


def test_questions_are_open_items_of_live_panes_answerable_only_while_waiting() -> None:
    run_b = "66666666-6666-4666-8666-666666666666"
    snapshot = Snapshot(
        panes=[pane(PANE_A, provider="claude-code", agentState="waiting-input"),
               pane(PANE_B, provider="claude-code", agentState="running")],
        jobs=[job(JOB_A, PANE_A, "waiting-input", runID={"rawValue": RUN_A})],
        attention=[question(PANE_A, RUN_A), question(PANE_B, run_b),
                   question(PANE_A, "77777777-7777-4777-8777-777777777777", resolved="x"),
                   question(PANE_C, run_b)],
    )  # fmt: skip
    questions = board_mod.build(snapshot).questions
    assert [(q.pane_id, q.answerable) for q in questions] == [(PANE_A, True), (PANE_B, False)]
    assert questions[0].job_id == JOB_A and questions[0].question == "Which one?"
    # A job bound to another run than the question's is not answered by it.
    snapshot.jobs[0]["runID"] = {"rawValue": run_b}
    assert not board_mod.build(snapshot).questions[0].answerable


def test_approvals_oldest_first_and_a_controller_that_is_down() -> None:
    entry = {
        "id": "b",
        "paneID": PANE_A,
        "provider": "codex",
        "tool": "Bash",
        "action": "ls",
        "paths": ["a", 3],
        "requestedAt": "2027-01-15T08:00:02Z",
        "state": "holding",
    }
    older = {**entry, "id": "a", "requestedAt": "2027-01-15T08:00:01Z"}
    board = board_mod.build(Snapshot(approvals=[entry, older, {"id": ""}]))
    assert [a.id for a in board.approvals] == ["a", "b"]
    assert board.approvals[0].paths == ("a",)
    down = board_mod.build(Snapshot(problem="not running"))
    assert down.problem == "not running" and down.groups == ()


def test_equal_snapshots_make_equal_boards() -> None:
    def snap() -> Snapshot:
        return Snapshot(panes=[pane(PANE_A, provider="codex", agentState="running")])

    assert board_mod.build(snap()) == board_mod.build(snap())
    changed = snap()
    changed.panes[0]["agentState"] = "succeeded"
    assert board_mod.build(changed) != board_mod.build(snap())
