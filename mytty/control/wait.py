"""``wait``: block until the pane's most relevant run is idle/done, or needs attention.

Event-driven: the controller wakes waiters on every stored event and pane change. A pane that
never had an event never satisfies ``idle`` (there is no "nothing yet = idle" default).
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import AgentChecks, PaneDirectory, RunWaiter
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentRunState
from mytty.protocol import wire
from mytty.protocol.replies import WaitResultReply

TYPE = "wait"
ERRORS = frozenset(
    {
        ErrorCode.PANE_NOT_FOUND,
        ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)
DEFAULT_TIMEOUT_S = 120.0

SATISFIES = {
    "idle": frozenset(
        {
            AgentRunState.IDLE,
            AgentRunState.SUCCEEDED,
            AgentRunState.FAILED,
            AgentRunState.DISCONNECTED,
        }
    ),
    "attention": frozenset({AgentRunState.WAITING_INPUT, AgentRunState.WAITING_APPROVAL}),
}


class WaitContext(PaneDirectory, RunWaiter, AgentChecks, Protocol):
    """What ``wait`` uses of the controller."""


async def handle(ctx: WaitContext, params: Params) -> WaitResultReply:
    pane_id = params.str("paneID")
    until = params.str("until")
    if until not in SATISFIES:
        raise MyttyError(ErrorCode.INVALID_REQUEST, "until must be idle or attention")
    timeout = max(0.0, params.number("timeoutSeconds", DEFAULT_TIMEOUT_S))
    pane = ctx.require_pane(pane_id)
    if until == "attention":
        await ctx.attention_preflight(pane)
    wanted = SATISFIES[until]
    surface = pane.surface_id
    last: list[AgentRunState | None] = [None]

    def probe() -> AgentRunState | None:
        if ctx.panes.by_surface.get(surface) is None:
            raise MyttyError(ErrorCode.PANE_NOT_FOUND, f"pane {pane_id} closed while waiting")
        run = ctx.hub.book.most_relevant(surface)
        last[0] = run.state if run is not None else None
        return run.state if run is not None and run.state in wanted else None

    state, timed_out = await ctx.hub.wait_until(probe, timeout, surface_id=surface)
    final = state if state is not None else last[0]
    return wire.wait_result(final, timed_out)
