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
This shows installed / needs-repair / not-installed per provider. "leadNotices" says whether
a lead running that agent hears of its `agent spawn --notify-lead` workers ("next-prompt")
or not ("none").""",
    doc="""
Each provider's status, read from its files on every call, in the order above.

Request `{"type":"integrationList"}`. Reply:

```json
{"integrations":[{"provider":"codex","status":"not-installed","leadNotices":"next-prompt"},{"provider":"claude-code","status":"installed","leadNotices":"next-prompt"},{"provider":"opencode","status":"not-installed","leadNotices":"none"},{"provider":"antigravity","status":"not-installed","leadNotices":"none"},{"provider":"cursor","status":"not-installed","leadNotices":"none"}],"type":"integrationStatuses"}
```

`status` is `installed`, `needs-repair` or `not-installed`; `error` is added when mytty knows
why (a malformed config file is reported this way, as `needs-repair`, rather than as a
failure).

`leadNotices` (a mytty addition) says whether a lead running that agent is told of the
workers it spawned with `agent spawn --notify-lead` ([lead notices](#lead-notices)):
`next-prompt` (Claude Code, Codex: the notice is added to the model's context by the lead's
`UserPromptSubmit`/`SessionStart` hook) or `none` (OpenCode, Antigravity, Cursor: their hooks
offer no output that reaches the model, so the lead has to `agent wait` or `agent list`).
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
