"""``notifyTest``: one test notification through every enabled channel (``mytty notify test``).

The notification goes out at once, past the router's policy (no focus check, no cooldown), as
an ``approval`` with ``"test": true`` in its JSON, so a user command can tell it apart. The
caller's pane (when ``mytty notify test`` runs inside a mytty pane) is the one whose bell
rings. Each channel reports ``sent``, ``skipped`` (with why: not configured, no client
attached, no D-Bus session…) or ``failed`` (with the error, e.g. the command's exit status and
the last line of its stderr, or that it was killed at ``[notify] timeout``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command
from mytty.control.targets import CallerParams as Params
from mytty.control.targets import parse_caller as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import Notifications, PaneFacts
    from mytty.protocol.replies import NotifyTestReply

    class NotifyTestContext(Notifications, PaneFacts, Protocol):
        """What ``notify_test`` uses of the controller."""


COMMAND = Command(
    name=None,
    wire="notifyTest",
    summary="send a test notification through every enabled channel (used by `mytty notify test`)",
    errors=(codes.INTERNAL_ERROR,),
    receive_timeout=70.0,  # a user command may take up to [notify] timeout (at most 60 s)
    doc="""
`{"type":"notifyTest"}` →
`{"type":"notifyTest","channels":[{"channel","status","detail"}],"notification":{…}}`:
each enabled channel in the order it went out, `status` one of `sent`, `skipped`, `failed`;
`notification` is the JSON object the `[notify] command` received (with `"test": true`). The
caller's pane, if it is a mytty pane, is the one whose bell rings. See
[config.md](config.md#notify-the-notification-router).
""",
)


async def handle(ctx: NotifyTestContext, params: Params) -> NotifyTestReply:
    return await ctx.notify_test(ctx.caller_surface(params.peer_pid))
