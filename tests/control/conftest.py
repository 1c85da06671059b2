"""Shared set-up for the handler tests: one FakeController per test, inside one event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, format_uuid_bytes
from tests.control.fakes import USER_SESSION, FakeController, FakePane

Scenario = Callable[[FakeController, FakePane], Coroutine[Any, Any, None]]


def run(scenario: Scenario) -> None:
    """Run ``scenario(controller, first_pane)``: a fake tmux with the ``mytty`` session."""

    async def main() -> None:
        controller = FakeController()
        controller.tmux.add_session(USER_SESSION, cwd="/tmp")
        await controller.refresh_panes()
        (pane,) = controller.panes.panes()
        await scenario(controller, pane)

    asyncio.run(main())


def uuid() -> str:
    import os

    return format_uuid_bytes(os.urandom(16))


def event(
    pane: SurfaceId,
    kind: AgentEventKind,
    *,
    run: str | None = None,
    provider: AgentProvider = AgentProvider.CLAUDE_CODE,
    at: float = 1_000_000.0,
    message: str | None = None,
) -> AgentEvent:
    return AgentEvent(
        id=uuid(),
        run_id=RunId(run or uuid()),
        surface_id=pane,
        provider=provider,
        kind=kind,
        occurred_at=at,
        message=message,
    )


def failure(reply: dict[str, Any]) -> str:
    """The code of a failure reply (fails the test on success)."""
    assert reply["type"] == "failure", reply
    assert reply["message"], reply  # one clear line for humans, always
    code: str = reply["code"]
    return code
