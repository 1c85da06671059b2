"""Crash durability, bounded for CI: ``kill -9`` rounds under steady hook load (issue 15).

What holds is spelled out in tests/reliability/crash.py; ``scripts/bench/crash`` runs the same
rounds 20 times or more and reports the restart-to-serving times. Here: CRASH_ROUNDS rounds
(``MYTTY_CRASH_ROUNDS`` overrides), a starting controller killed at a different point every
other round.
"""

from __future__ import annotations

import os

import pytest

from tests.e2e.events_support import open_agent_pane
from tests.reliability import counts
from tests.reliability.crash import HookLoad, crash_rounds, verify
from tests.support.harness import Mytty

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

CRASH_ROUNDS = int(os.environ.get("MYTTY_CRASH_ROUNDS", "4"))
ACKS_PER_ROUND = 60
LOAD_PANES = 3


def test_kill_9_under_hook_load_loses_and_duplicates_nothing(mytty: Mytty) -> None:
    m = mytty
    load = HookLoad(m, [open_agent_pane(m) for _ in range(LOAD_PANES)])
    load.start()
    try:
        rounds = crash_rounds(m, load, CRASH_ROUNDS, ACKS_PER_ROUND, startup_kill_every=2)
    finally:
        load.stop()
    verdict = verify(m, load, rounds)
    print(rounds.summary(), verdict.summary())
    assert verdict.acked >= CRASH_ROUNDS * ACKS_PER_ROUND
    assert rounds.startup_kills >= CRASH_ROUNDS // 2
    counts.add("crash: kill -9 rounds", rounds.kills)
    counts.add("crash: kills while starting", rounds.startup_kills)
    counts.add("crash: acknowledged events checked", verdict.acked)
    assert "Traceback" not in m.log()
