"""The run state machine as data: the transition table and the ranking of states.

semantics §1.3: ``idle`` resets any state, ``disconnected`` ends any state but itself, a run
starts from ``unknown``/``idle``, goes back to ``running`` from a wait, and only a running run
asks, succeeds or fails. Every other (state, kind) pair is ignored.

A mytty addition: ``limit-reached`` parks a running or waiting run, and an ``unknown`` one (a
turn whose start was never seen, first read from a transcript that already shows the limit).
A parked run's turn is over: only ``idle`` and ``disconnected`` move it, like a finished run.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from mytty.core.events import AgentEventKind, AgentRunState

_S = AgentRunState
_K = AgentEventKind


def _build_transitions() -> Mapping[tuple[AgentRunState, AgentEventKind], AgentRunState]:
    table: dict[tuple[AgentRunState, AgentEventKind], AgentRunState] = {}
    for state in AgentRunState:
        # idle is the universal reset: it even re-opens terminal runs, so a pane can start over.
        table[(state, _K.IDLE)] = _S.IDLE
        if state != _S.DISCONNECTED:
            table[(state, _K.DISCONNECTED)] = _S.DISCONNECTED
    for state in (_S.UNKNOWN, _S.IDLE):
        table[(state, _K.STARTED)] = _S.RUNNING
        table[(state, _K.RUNNING)] = _S.RUNNING
    for state in (_S.WAITING_INPUT, _S.WAITING_APPROVAL):
        table[(state, _K.RUNNING)] = _S.RUNNING
    table[(_S.RUNNING, _K.INPUT_REQUESTED)] = _S.WAITING_INPUT
    table[(_S.RUNNING, _K.APPROVAL_REQUESTED)] = _S.WAITING_APPROVAL
    table[(_S.RUNNING, _K.SUCCEEDED)] = _S.SUCCEEDED
    table[(_S.RUNNING, _K.FAILED)] = _S.FAILED
    for state in (_S.UNKNOWN, _S.RUNNING, _S.WAITING_INPUT, _S.WAITING_APPROVAL):
        table[(state, _K.LIMIT_REACHED)] = _S.PARKED
    return MappingProxyType(table)


#: (current state, event kind) → next state. A missing pair means the event is ignored.
TRANSITIONS: Mapping[tuple[AgentRunState, AgentEventKind], AgentRunState] = _build_transitions()

#: Ranking used by :meth:`~mytty.core.runs.book.RunBook.most_relevant`; higher wins.
STATE_PRIORITY: Mapping[AgentRunState, int] = MappingProxyType(
    {
        _S.WAITING_APPROVAL: 8,
        _S.WAITING_INPUT: 7,
        # Waiting for a usage limit to reset outranks a failure: it goes on by itself.
        _S.PARKED: 6,
        _S.FAILED: 5,
        _S.DISCONNECTED: 4,
        _S.RUNNING: 3,
        _S.SUCCEEDED: 2,
        _S.UNKNOWN: 1,
        _S.IDLE: 1,
    }
)

#: A run moving from one of these to running is a fresh start (or a restart after idle): it
#: gets a new startedAt.
RESTART_STATES = frozenset({_S.UNKNOWN, _S.IDLE})


def transition(state: AgentRunState, kind: AgentEventKind) -> AgentRunState | None:
    """Return the state a run in ``state`` moves to on an event of ``kind``, or None if ignored."""
    return TRANSITIONS.get((state, kind))
