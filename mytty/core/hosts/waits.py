"""``agent wait --any/--all`` over jobs of several hosts: each host answers for its own jobs,
and these rules combine the answers into the one reply a single controller would give.

Pure and stdlib only: job states are read from the reply's snapshots (their ``state``
strings), with the same conditions as :func:`mytty.core.jobs.tracker.satisfies` (a test
holds the two to each other for every state).
"""

from __future__ import annotations

from collections.abc import Sequence

from mytty.core import vocab

TERMINAL_STATES = frozenset(
    {vocab.SUCCEEDED, vocab.FAILED, vocab.DISCONNECTED, vocab.LAUNCH_FAILED, vocab.LOST}
)
ATTENTION_STATES = frozenset({vocab.WAITING_INPUT, vocab.WAITING_APPROVAL})


def satisfies(state: str, until: str) -> bool:
    """Does a job in ``state`` meet ``agent wait --until until``?"""
    if until == vocab.RUNNING:
        return state not in (vocab.LAUNCHING, vocab.QUEUED)
    if until == vocab.ATTENTION:
        return state in ATTENTION_STATES or state in TERMINAL_STATES
    if until == vocab.COMPLETED:
        return state in TERMINAL_STATES
    raise ValueError(f"unknown wait condition {until!r}")


def deciding(states: Sequence[str], until: str, match: str) -> tuple[int, bool]:
    """(index of the job that decides the wait, timed out) for the jobs' current ``states``
    in the order given: ``any`` is decided by the first that satisfies ``until``, ``all`` by
    the last once every one does; undecided, by the first that does not satisfy it."""
    met = [satisfies(state, until) for state in states]
    if match == "all" and all(met):
        return len(states) - 1, False
    if match == "any" and any(met):
        return met.index(True), False
    return next((n for n, ok in enumerate(met) if not ok), 0), True
