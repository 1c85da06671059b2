"""``integrationList`` / ``integrationEnable`` / ``integrationRepair``.

Enabling or repairing a hook changes what code runs inside another program, so it needs a
human: the controller asks on an attached tmux client and waits up to 180 s. There is no way
to skip the question; an AI orchestrator can ask for an install but never approve one.
"""

from __future__ import annotations

from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import IntegrationStatus
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider
from mytty.protocol.replies import IntegrationStatusesReply

TYPES = ("integrationList", "integrationEnable", "integrationRepair")
ERRORS = frozenset(
    {
        ErrorCode.INTEGRATION_DECLINED,
        ErrorCode.INVALID_CONFIGURATION,
        ErrorCode.INVALID_PROVIDER,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)


def _provider(text: str | None) -> AgentProvider | None:
    if text is None:
        return None
    try:
        return AgentProvider(text)
    except ValueError:
        raise MyttyError(
            ErrorCode.INVALID_PROVIDER,
            f"unknown provider {text!r}; use codex, claude-code, opencode, antigravity or cursor",
        ) from None


class IntegrationContext(IntegrationStatus, Protocol):
    """What ``integration`` uses of the controller."""


async def handle(ctx: IntegrationContext, params: Params) -> IntegrationStatusesReply:
    kind = params.str("type")
    reply: IntegrationStatusesReply
    if kind == "integrationList":
        reply = await ctx.integrations.wire()
    elif kind == "integrationEnable":
        provider = _provider(params.str("provider"))
        assert provider is not None
        reply = await ctx.integrations.enable_with_consent([provider], repair=False)
    else:
        reply = await ctx.integrations.repair_with_consent(_provider(params.opt_str("provider")))
    return reply
