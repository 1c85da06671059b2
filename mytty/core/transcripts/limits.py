"""A turn that stopped at the usage limit, as a transcript or rollout records it, and the
``limit-reached`` event mytty makes of it (for agents whose hook did not say so, and to carry
the reset the hooks never give)."""

from __future__ import annotations

from dataclasses import dataclass

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.limits.facts import LimitFacts

#: The hookNames of the events read from a transcript (``mytty.``: synthesized).
CLAUDE_LIMIT_HOOK = "mytty.claudeTurnLimited"
CODEX_LIMIT_HOOK = "mytty.codexTurnLimited"
_HOOKS = {AgentProvider.CLAUDE_CODE: CLAUDE_LIMIT_HOOK, AgentProvider.CODEX: CODEX_LIMIT_HOOK}
#: The agent's text about the limit is clipped to this many characters.
MAX_LIMIT_TEXT = 1000


@dataclass(frozen=True, slots=True)
class TurnLimit:
    """Turn ``turn`` (Claude's promptId, Codex's turn_id) stopped at a usage limit."""

    turn: str
    facts: LimitFacts


def limit_run_id(provider: AgentProvider, turn: str) -> RunId:
    """The run of that turn: the one the hooks (and native estimation) give it."""
    return RunId(stable_uuid("run", provider.value, turn))


def limit_event(
    provider: AgentProvider,
    surface_id: SurfaceId,
    limit: TurnLimit,
    session_id: str | None,
    occurred_at: float,
) -> AgentEvent:
    """The ``limit-reached`` event of a limited turn: on that turn's run, id stable(event,
    provider, limited, turn), so reading the same record again adds nothing."""
    return AgentEvent(
        id=stable_uuid("event", provider.value, "limited", limit.turn),
        run_id=limit_run_id(provider, limit.turn),
        surface_id=surface_id,
        provider=provider,
        kind=AgentEventKind.LIMIT_REACHED,
        occurred_at=occurred_at,
        session_id=session_id,
        message=limit.facts.message,
        hook_name=_HOOKS[provider],
    )


def clip_text(text: str | None) -> str | None:
    if text is None or not text.strip():
        return None
    return text.strip()[:MAX_LIMIT_TEXT]
