"""The transition table against semantics §1.3, written out independently in support.py."""

from __future__ import annotations

import pytest

from mytty.core.events import AgentEventKind, AgentRunState
from mytty.core.runs.table import TRANSITIONS, transition
from tests.core.runs.support import ALL_PAIRS, EXPECTED


@pytest.mark.parametrize(("state", "kind"), ALL_PAIRS)
def test_transition_table(state: AgentRunState, kind: AgentEventKind) -> None:
    assert transition(state, kind) == EXPECTED[state].get(kind)


def test_table_has_exactly_the_listed_pairs() -> None:
    expected_pairs = {(s, k) for s, row in EXPECTED.items() for k in row}
    assert set(TRANSITIONS) == expected_pairs
