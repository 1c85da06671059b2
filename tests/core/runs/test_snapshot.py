"""The per-pane run bound and the books' snapshot (issue 15 #6), pure.

Property: restoring a snapshot taken at any point of an event log and applying the rest of the
log gives the same runs and attention items as replaying the whole log.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.attention.items import AttentionBook, AttentionItem
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState
from mytty.core.runs.book import RunBook
from mytty.core.runs.retention import MAX_RUNS_PER_PANE
from mytty.core.runs.run import AgentRun
from mytty.core.runs.snapshot import decode_snapshot, encode_snapshot
from tests.core.builders import CODEX, P, R, ev

K = AgentEventKind


class Books:
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


def test_a_pane_keeps_at_most_the_bound_and_drops_the_oldest_finished_first() -> None:
    books = Books(bound=5)
    pane = P("flood")
    active = R("active-0")
    books.feed([ev(K.STARTED, run=active, pane=pane, provider=CODEX, at=0.0)])
    for i in range(50):
        run = R(f"done-{i}")
        books.feed(
            [
                ev(K.STARTED, run=run, pane=pane, provider=CODEX, at=i + 1.0),
                ev(K.FAILED, run=run, pane=pane, provider=CODEX, at=i + 1.0),
            ]
        )
    kept = books.runs.runs_for_surface(pane)
    assert len(kept) == 5
    assert kept[0].id == active and kept[0].state is AgentRunState.RUNNING  # active stays
    assert [r.id for r in kept[1:]] == [R(f"done-{i}") for i in range(46, 50)]
    # Their failure items went with the dropped runs.
    assert {i.run_id for i in books.attention.all_items()} == {r.id for r in kept[1:]}
    # Another pane is not touched.
    other = P("other")
    books.feed([ev(K.STARTED, run=R("other"), pane=other, provider=CODEX, at=99.0)])
    assert len(books.runs.runs_for_surface(other)) == 1
    assert len(books.runs.runs_for_surface(pane)) == 5


def test_when_every_run_is_active_the_oldest_goes() -> None:
    books = Books(bound=3)
    pane = P("busy")
    books.feed([ev(K.STARTED, run=R(f"r{i}"), pane=pane, provider=CODEX, at=i) for i in range(4)])
    assert [r.id for r in books.runs.runs_for_surface(pane)] == [R("r1"), R("r2"), R("r3")]


_kinds = st.sampled_from(list(K))
_events = st.lists(
    st.tuples(
        st.integers(0, 7),  # run
        st.integers(0, 1),  # pane
        _kinds,
        st.sampled_from([None, "m", "é\x00"]),
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(_events, st.integers(0, 60))
def test_snapshot_plus_tail_equals_full_replay(
    raw: list[tuple[int, int, K, str | None]], cut: int
) -> None:
    log = [
        ev(
            kind,
            run=R(f"run{run}-{pane}"),
            pane=P(f"pane{pane}"),
            provider=CODEX,
            at=float(i),
            message=m,
        )
        for i, (run, pane, kind, m) in enumerate(raw)
    ]
    cut = min(cut, len(log))
    whole = Books(bound=4)
    whole.feed(log)

    first = Books(bound=4)
    first.feed(log[:cut])
    text = encode_snapshot(first.runs.all_runs(), first.attention.all_items())
    snapshot = decode_snapshot(text)
    assert snapshot is not None
    restored = Books(bound=4)
    for run in snapshot.runs:
        restored.runs.restore(run)
    for item in snapshot.items:
        restored.attention.restore(item)
    assert restored.state() == first.state()
    restored.feed(log[cut:])
    assert restored.state() == whole.state()


def test_a_snapshot_of_another_version_or_garbage_is_ignored() -> None:
    assert decode_snapshot('{"v":0,"runs":[],"items":[]}') is None
    assert decode_snapshot("not json") is None
    assert decode_snapshot('{"v":3,"runs":[[1]],"items":[]}') is None
    assert decode_snapshot('{"v":3,"runs":[],"items":[]}') is not None
    # Version 1 had no subagent columns, version 2 no root_ended: such a snapshot is ignored
    # and the log is replayed.
    assert decode_snapshot('{"v":1,"runs":[],"items":[]}') is None
    assert decode_snapshot('{"v":2,"runs":[],"items":[]}') is None
