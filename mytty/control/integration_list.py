"""``integrationList``: each provider's hook integration status, read from its files now."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import IntegrationStatus
    from mytty.protocol.replies import IntegrationStatusesReply

    class IntegrationContext(IntegrationStatus, Protocol):
        """What ``integration_list`` uses of the controller."""


COMMAND = Command(
    name="integration list",
    wire="integrationList",
    summary="installed / needs-repair / not-installed per provider",
    errors=(codes.INVALID_REQUEST,),
    guide="""\
Agents report their state through hooks that mytty installs into their configuration.
This shows installed / needs-repair / not-installed per provider.""",
    doc="""
Each provider's status, read from its files on every call, in the order above.

Request `{"type":"integrationList"}`. Reply:

```json
{"integrations":[{"provider":"codex","status":"not-installed"},{"provider":"claude-code","status":"installed"},{"provider":"opencode","status":"not-installed"},{"provider":"antigravity","status":"not-installed"},{"provider":"cursor","status":"not-installed"}],"type":"integrationStatuses"}
```

`status` is `installed`, `needs-repair` or `not-installed`; `error` is added when mytty knows
why (a malformed config file is reported this way, as `needs-repair`, rather than as a
failure).
""",
)


class Params:
    """This request has no fields."""

    __slots__ = ()


def parse(request: Request) -> Params:
    return Params()


async def handle(ctx: IntegrationContext, params: Params) -> IntegrationStatusesReply:
    reply: IntegrationStatusesReply = await ctx.integrations.wire()
    return reply
