"""``integrationEnable``: install one provider's hooks, after the human approves.

Enabling or repairing a hook changes what code runs inside another program, so it needs a
human: the controller asks on an attached tmux client and waits up to 180 s. There is no way
to skip the question; an AI orchestrator can ask for an install but never approve one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Arg, Command
from mytty.core import codes
from mytty.core.vocab import PROVIDERS
from mytty.protocol.limits import CONSENT_TIMEOUT_S

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import IntegrationStatus
    from mytty.core.events import AgentProvider
    from mytty.protocol.replies import IntegrationStatusesReply

    class IntegrationContext(IntegrationStatus, Protocol):
        """What ``integration_enable`` uses of the controller."""


#: The human's time to answer plus the reply's way back.
RECEIVE_TIMEOUT_S = CONSENT_TIMEOUT_S + 5.0

PROVIDER = Arg(
    "PROVIDER",
    "provider",
    "an event provider (not agent spawn's vocabulary)",
    choices=PROVIDERS,
    code=codes.INVALID_PROVIDER,
)
ERRORS = (
    codes.INTEGRATION_DECLINED,
    codes.INVALID_CONFIGURATION,
    codes.INVALID_PROVIDER,
    codes.TMUX_UNAVAILABLE,
    codes.INVALID_REQUEST,
)

COMMAND = Command(
    name="integration enable",
    wire="integrationEnable",
    summary="install a provider's hooks (asks the human first)",
    args=(PROVIDER,),
    receive_timeout=RECEIVE_TIMEOUT_S,
    errors=ERRORS,
    client_errors=(codes.USAGE, codes.INVALID_PROVIDER),
    guide="""\
Asks the human at the tmux client to approve; you can ask, never approve. If it answers
integration-declined, tell the user to run "mytty integrations enable <provider>"
themselves instead of retrying.""",
    doc=f"""
Installing hooks changes what runs inside another program, so this asks the human: the
controller opens a popup on the most recently active attached tmux client listing the files
that will change, and waits up to {int(CONSENT_TIMEOUT_S)} s for `y`. There is no flag to skip
the question; an agent can ask for an install but never approve one. `n`, Escape, no answer,
or nobody attached → `integration-declined`; then tell the user to run
`mytty integrations enable PROVIDER`. An `enable` of an installed provider answers at once
without asking. A provider outside the five is `invalid-provider`, checked before connecting.

Request `{{"type":"integrationEnable","provider":"opencode"}}`. Reply: the
`integrationStatuses` object after the change.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("provider",)

    def __init__(self, provider: str) -> None:
        self.provider = provider


def parse(request: Request) -> Params:
    return Params(request.text(PROVIDER))


def provider_of(text: str) -> AgentProvider:
    """The ``AgentProvider`` named by ``text``; ``invalid-provider`` for anything else."""
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.events import AgentProvider
    from mytty.core.vocab import one_of, suggestion

    try:
        return AgentProvider(text)
    except ValueError:
        raise MyttyError(
            ErrorCode.INVALID_PROVIDER,
            f"unknown provider {text!r}{suggestion(text, PROVIDERS)}; use {one_of(PROVIDERS)}",
        ) from None


async def handle(ctx: IntegrationContext, params: Params) -> IntegrationStatusesReply:
    return await ctx.integrations.enable_with_consent([provider_of(params.provider)], repair=False)
