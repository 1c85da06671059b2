"""The contract between transcript readers and the native run estimator.

A transcript reader (Claude's project ``.jsonl``, Codex's rollout, Cursor's ``store.db``) turns
what an agent wrote about its own turns into one :class:`TurnObservation` per pane: the key of
the turn it is on and whether that turn is active, completed, interrupted or failed. The estimator's
turn machine (semantics §9.4) acts only when an observation *changes* for a pane, so a reader may
report the same observation on every pass.

:class:`TurnTarget` is what the estimator knows about a pane's agent when it asks: the reader
uses it to find the right file (the hook's session id first, else the agent's cwd or the files
its process holds open).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from mytty.core.events import AgentProvider


class TurnPhase(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"
    INTERRUPTED = "interrupted"
    #: The turn ended in an error the transcript records (Codex: the model API failed); a
    #: mytty addition, the original knows only the three above.
    FAILED = "failed"
    #: The turn stopped at the provider account's usage limit (a mytty addition).
    LIMITED = "limited"


#: The phases of a turn that is over.
ENDED = frozenset({TurnPhase.COMPLETED, TurnPhase.INTERRUPTED, TurnPhase.FAILED, TurnPhase.LIMITED})
#: The ended phases whose observation carries a ``message`` (the error's, the limit's text).
WITH_MESSAGE = frozenset({TurnPhase.FAILED, TurnPhase.LIMITED})


@dataclass(frozen=True, slots=True)
class TurnObservation:
    """The turn an agent is on, as its own transcript says."""

    key: str  # Claude promptId, Codex turn_id (else the record's timestamp), Cursor conv#rowid
    phase: TurnPhase
    message: str | None = None  # why a FAILED turn failed, what a LIMITED one was told
    #: A COMPLETED turn's final answer (its last assistant text), clipped like a hook's.
    answer: str | None = None
    #: When the turn began (Unix seconds), as the transcript's own timestamp says (Claude: the
    #: prompt row; Codex: ``task_started``); None when it does not say. Not compared: it is
    #: the same for every report of a turn, and what changed is the key or the phase.
    started_at: float | None = field(default=None, compare=False)
    #: Turns that ended and were followed by this one since the reader last reported (oldest
    #: first): a prompt queued while the agent was busy starts as the previous turn ends, both
    #: within one look. Not compared, like ``started_at``.
    before: tuple[TurnObservation, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class TurnTarget:
    """One pane's detected agent, as the estimator passes it to a transcript reader."""

    surface_id: str
    provider: AgentProvider
    pid: int  # the agent's own process
    cwd: str | None  # the agent process's working directory, when readable
    session_id: str | None  # the provider session id the hooks (or mytty, at spawn) gave
