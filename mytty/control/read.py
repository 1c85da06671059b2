"""``read``: the pane's text (scrollback included, wrapped lines joined) and cursor position."""

from __future__ import annotations

from mytty.control.spec import PANE, Command
from mytty.control.targets import PaneParams as Params
from mytty.control.targets import parse_pane as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from typing import Protocol

    from mytty.control.ports import PaneDirectory, PaneView, TmuxAccess
    from mytty.protocol.replies import ContentReply, PaneContent

    class ReadContext(PaneDirectory, TmuxAccess, Protocol):
        """What ``read`` uses of the controller."""


COMMAND = Command(
    name="read",
    wire="read",
    summary="screen text (scrollback included) and cursor position",
    args=(PANE,),
    errors=(codes.PANE_NOT_FOUND, codes.TMUX_UNAVAILABLE, codes.INVALID_REQUEST),
    doc="""
The pane's text, scrollback included: wrapped lines joined, trailing spaces and trailing blank
lines removed, at most the last 10 000 lines and 768 KiB. `cursorRow` is the cursor's line
index within `text` (0-based), `cursorColumn` the number of characters before it on that
line; both are `null` when unknown. `paneID` is echoed exactly as given (tmux's name for
the pane, such as `%3`, is answered with the pane's id).

Request `{"type":"read","paneID":"<UUID>"}`. Reply:

```json
{"content":{"cursorColumn":11,"cursorRow":3,"paneID":"f175a676-fa87-4d90-8ca0-68a6cae6188c","text":"hello from split\\nroot@vm:~# echo typed\\ntyped\\nroot@vm:~#"},"type":"content"}
```
""",
)


async def read_content(ctx: TmuxAccess, pane: PaneView, echo_id: str) -> PaneContent:
    from mytty.protocol import wire

    capture = await ctx.require_port().capture(pane.tmux_id)
    return wire.pane_content(echo_id, capture.text, capture.cursor_row, capture.cursor_column)


async def handle(ctx: ReadContext, params: Params) -> ContentReply:
    from mytty.core.ids import parse_surface_id
    from mytty.protocol import wire

    pane = ctx.require_pane(params.pane_id)
    # A UUID is echoed as given (the seed's rule); tmux's name for the pane becomes its id.
    echo = params.pane_id if parse_surface_id(params.pane_id) else pane.surface_id
    return wire.content_reply(await read_content(ctx, pane, echo))
