"""The books' snapshot (issue 15 #6), pure.

Property: restoring a snapshot taken at any point of an event log and applying the rest of the
log gives the same runs and attention items as replaying the whole log.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.events import AgentEventKind
from mytty.core.runs.snapshot import decode_snapshot, encode_snapshot
from tests.core.builders import CODEX, P, R, ev
from tests.core.runs.support import Books

K = AgentEventKind


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
