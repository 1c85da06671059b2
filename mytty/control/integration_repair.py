"""``integrationRepair``: reinstall ``needs-repair`` hooks (one provider, or all), after the
human approves (see :mod:`mytty.control.integration_enable`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.integration_enable import ERRORS, PROVIDER, RECEIVE_TIMEOUT_S, provider_of
from mytty.control.spec import Arg, Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import IntegrationStatus
    from mytty.protocol.replies import IntegrationStatusesReply

    class IntegrationContext(IntegrationStatus, Protocol):
        """What ``integration_repair`` uses of the controller."""


ONLY_PROVIDER = Arg(
    PROVIDER.metavar,
    PROVIDER.wire,
    "only this provider (default: every needs-repair one)",
    choices=PROVIDER.choices,
    code=PROVIDER.code,
    optional=True,
)

COMMAND = Command(
    name="integration repair",
    wire="integrationRepair",
    summary="reinstall needs-repair hooks (asks the human first)",
    args=(ONLY_PROVIDER,),
    receive_timeout=RECEIVE_TIMEOUT_S,
    errors=ERRORS,
    client_errors=(codes.USAGE, codes.INVALID_PROVIDER),
    guide="""\
Like integration enable, for integrations that need repair.""",
    doc="""
As `integration enable`, for integrations that are `needs-repair`: without a provider it
repairs every one of them, with one only that one (a `not-installed` provider is simply
installed). With nothing to repair it answers at once without asking.

Request `{"type":"integrationRepair","provider"?:"codex"}`. Reply: the `integrationStatuses`
object after the change.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("provider",)

    def __init__(self, provider: str | None) -> None:
        self.provider = provider


def parse(request: Request) -> Params:
    return Params(request.optional_text(ONLY_PROVIDER))


async def handle(ctx: IntegrationContext, params: Params) -> IntegrationStatusesReply:
    provider = provider_of(params.provider) if params.provider is not None else None
    return await ctx.integrations.repair_with_consent(provider)
