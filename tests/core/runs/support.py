"""What the run tests share: the transition table written out by hand, books brought into a
state, generated event logs and the invariants every book keeps."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from mytty.core.attention.items import AttentionBook, AttentionItem
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, AgentRunState
from mytty.core.ids import RunId
from mytty.core.runs.book import RunBook
from mytty.core.runs.retention import MAX_RUNS_PER_PANE
from mytty.core.runs.run import AgentRun
from tests.core.builders import CLAUDE, CODEX, PANE, RUN, P, R, U, ev

S = AgentRunState
K = AgentEventKind

# Written out independently of the implementation: semantics §1.3 row by row.
EXPECTED: dict[AgentRunState, dict[AgentEventKind, AgentRunState]] = {
    S.UNKNOWN: {
        K.IDLE: S.IDLE,
        K.STARTED: S.RUNNING,
        K.RUNNING: S.RUNNING,
        K.DISCONNECTED: S.DISCONNECTED,
        K.LIMIT_REACHED: S.PARKED,
    },
    S.IDLE: {
        K.IDLE: S.IDLE,
        K.STARTED: S.RUNNING,
        K.RUNNING: S.RUNNING,
        K.DISCONNECTED: S.DISCONNECTED,
    },
    S.RUNNING: {
        K.IDLE: S.IDLE,
        K.INPUT_REQUESTED: S.WAITING_INPUT,
        K.APPROVAL_REQUESTED: S.WAITING_APPROVAL,
        K.SUCCEEDED: S.SUCCEEDED,
        K.FAILED: S.FAILED,
        K.DISCONNECTED: S.DISCONNECTED,
        K.LIMIT_REACHED: S.PARKED,
    },
    S.WAITING_INPUT: {
        K.IDLE: S.IDLE,
        K.RUNNING: S.RUNNING,
        K.DISCONNECTED: S.DISCONNECTED,
        K.LIMIT_REACHED: S.PARKED,
    },
    S.WAITING_APPROVAL: {
        K.IDLE: S.IDLE,
        K.RUNNING: S.RUNNING,
        K.DISCONNECTED: S.DISCONNECTED,
        K.LIMIT_REACHED: S.PARKED,
    },
    S.SUCCEEDED: {K.IDLE: S.IDLE, K.DISCONNECTED: S.DISCONNECTED},
    S.FAILED: {K.IDLE: S.IDLE, K.DISCONNECTED: S.DISCONNECTED},
    S.DISCONNECTED: {K.IDLE: S.IDLE},
    # mytty's addition: a turn that stopped at a usage limit is over, like a finished one.
    S.PARKED: {K.IDLE: S.IDLE, K.DISCONNECTED: S.DISCONNECTED},
}

# Event kinds that bring a fresh run into each state (the first one for UNKNOWN is ignored).
PATHS: dict[AgentRunState, list[AgentEventKind]] = {
    S.UNKNOWN: [K.SUCCEEDED],
    S.IDLE: [K.IDLE],
    S.RUNNING: [K.STARTED],
    S.WAITING_INPUT: [K.STARTED, K.INPUT_REQUESTED],
    S.WAITING_APPROVAL: [K.STARTED, K.APPROVAL_REQUESTED],
    S.SUCCEEDED: [K.STARTED, K.SUCCEEDED],
    S.FAILED: [K.STARTED, K.FAILED],
    S.DISCONNECTED: [K.DISCONNECTED],
    S.PARKED: [K.STARTED, K.LIMIT_REACHED],
}

ALL_PAIRS = list(itertools.product(AgentRunState, AgentEventKind))


def book_in(
    state: AgentRunState,
    *,
    run: str = RUN,
    pane: str = PANE,
    provider: AgentProvider = CLAUDE,
    at: float = 10.0,
    book: RunBook | None = None,
) -> RunBook:
    book = book if book is not None else RunBook()
    for i, kind in enumerate(PATHS[state]):
        book.apply(ev(kind, run=run, pane=pane, provider=provider, at=at + i, message="prep"))
    got = book.get(RunId(run))
    assert got is not None and got.state == state
    return book


def set_state(
    book: RunBook, run: str, state: AgentRunState, at: float, provider: AgentProvider = CLAUDE
) -> None:
    book_in(state, run=run, provider=provider, at=at - len(PATHS[state]) + 1, book=book)
    got = book.get(RunId(run))
    assert got is not None
    if state != S.UNKNOWN:
        assert got.updated_at == at


RUN_POOL = [R(f"prop-run-{i}") for i in range(4)]
PANE_POOL = [P(f"prop-pane-{i}") for i in range(2)]
ID_POOL = [U(f"prop-event-{i}") for i in range(40)]
PROVIDERS = [CLAUDE, CODEX, AgentProvider.CURSOR]

event_strategy = st.builds(
    AgentEvent,
    id=st.sampled_from(ID_POOL),
    run_id=st.sampled_from(RUN_POOL),
    surface_id=st.sampled_from(PANE_POOL),
    provider=st.sampled_from(PROVIDERS),
    kind=st.sampled_from(list(AgentEventKind)),
    occurred_at=st.integers(0, 1000).map(float),
    session_id=st.sampled_from([None, None, "s1", "s2"]),
    message=st.sampled_from([None, "m"]),
    hook_name=st.sampled_from([None, "UserPromptSubmit", "mytty.native.turnStarted"]),
    schema_version=st.sampled_from([1, 1, 1, 1, 2]),
)
events_strategy = st.lists(event_strategy, max_size=60)


def check_invariants(book: RunBook) -> None:
    for run in book.all_runs():
        never_applied = run.accepted_event_count == 0
        assert (run.state == S.UNKNOWN) == never_applied == (run.updated_at is None)
        if run.is_active:
            assert run.started_at is not None
        assert run in book.runs_for_surface(run.surface_id)
        assert run in book.runs_for(run.surface_id, run.provider)
    for pane in PANE_POOL:
        runs = book.runs_for_surface(pane)
        relevant = book.most_relevant(pane)
        if not runs:
            assert relevant is None
            continue
        assert relevant in runs
        if any(run.is_active for run in runs):
            assert relevant is not None and relevant.is_active


class Books:
    """A run book and an attention book fed together, as the daemon feeds them."""

    def __init__(self, bound: int = MAX_RUNS_PER_PANE) -> None:
        self.runs = RunBook(max_runs_per_pane=bound)
        self.attention = AttentionBook()

    def feed(self, events: list[AgentEvent]) -> None:
        for e in events:
            self.attention.observe(e, self.runs.apply(e))

    def state(self) -> tuple[list[AgentRun], list[AttentionItem]]:
        return (
            sorted(self.runs.all_runs(), key=lambda r: r.id),
            sorted(self.attention.all_items(), key=lambda i: i.id),
        )
