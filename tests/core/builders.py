"""Event builders shared by the pure-core tests."""

from __future__ import annotations

import itertools

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid

CLAUDE = AgentProvider.CLAUDE_CODE
CODEX = AgentProvider.CODEX
DAY = 86400.0


def U(name: str) -> str:
    return stable_uuid("test", name)


def R(name: str) -> RunId:
    """A run id for ``name``."""
    return RunId(U(name))


def P(name: str) -> SurfaceId:
    """A pane (surface) id for ``name``."""
    return SurfaceId(U(name))


RUN = R("run")
PANE = P("pane")
_ids = itertools.count()


def ev(
    kind: AgentEventKind,
    *,
    run: str = RUN,
    pane: str = PANE,
    provider: AgentProvider = CLAUDE,
    at: float = 0.0,
    session: str | None = None,
    message: str | None = None,
    hook: str | None = None,
    eid: str | None = None,
    schema: int = 1,
    tool_use: str | None = None,
    tool: str | None = None,
    answer: str | None = None,
) -> AgentEvent:
    return AgentEvent(
        id=eid if eid is not None else U(f"event-{next(_ids)}"),
        run_id=RunId(run),
        surface_id=SurfaceId(pane),
        provider=provider,
        kind=kind,
        occurred_at=at,
        session_id=session,
        message=message,
        hook_name=hook,
        tool_use_id=tool_use,
        tool_name=tool,
        last_assistant_message=answer,
        schema_version=schema,
    )
