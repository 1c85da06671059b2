"""``send``: type literal text into a pane; a newline is Enter; ``pressEnter`` adds one more.

Sends to one pane are serialised so text and Enter never interleave between callers. The
Enter follows the text after a short pause because TUIs (Claude Code among them) treat input
that arrives in one burst as a paste, where Enter inserts a newline instead of submitting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import ENTER, PANE, Arg, Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import PaneDirectory, PaneView, TmuxAccess
    from mytty.protocol.replies import OkReply

    class SendContext(PaneDirectory, TmuxAccess, Protocol):
        """What ``send`` uses of the controller."""


#: Codex 0.171.0 takes an Enter within 120 ms of typed text for a newline of a paste (its
#: paste-burst guard, found by the real-agent tier); Claude Code's paste window is shorter.
ENTER_DELAY_S = 0.2

TEXT = Arg("TEXT", "text", "the text, typed literally")

COMMAND = Command(
    name="send",
    wire="send",
    summary="type TEXT (a newline is Enter)",
    args=(PANE, TEXT),
    options=(ENTER,),
    errors=(codes.PANE_NOT_FOUND, codes.TMUX_UNAVAILABLE, codes.INVALID_REQUEST),
    client_errors=(codes.USAGE, codes.REQUEST_TOO_LARGE),
    doc=f"""
Types `TEXT` literally. Every newline in it is an Enter key press; control characters are sent
as raw bytes. `--enter` presses Enter once more, {int(ENTER_DELAY_S * 1000)} ms after the text
(TUIs such as Claude Code treat a burst that ends in Enter as a paste and would insert a
newline instead of submitting). Sends to one pane are serialised, so text and Enter of two
callers never interleave. Unlike `--command`, sent text is typed and can end up in shell
history. Text starting with `--` goes after a `--` argument. A request over 64 KiB is refused
before connecting (`request-too-large`).

Request `{{"type":"send","paneID":"<UUID>","text":"echo typed","pressEnter":true}}`. Reply `{{"type":"ok"}}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("pane_id", "press_enter", "text")

    def __init__(self, pane_id: str, text: str, press_enter: bool) -> None:
        self.pane_id = pane_id
        self.text = text
        self.press_enter = press_enter


def parse(request: Request) -> Params:
    return Params(request.text(PANE), request.text(TEXT), request.flag(ENTER))


async def deliver(ctx: TmuxAccess, pane: PaneView, text: str, press_enter: bool) -> None:
    import asyncio

    async with ctx.pane_lock(pane.surface_id):
        await ctx.require_port().send_text(pane.tmux_id, text)
        if press_enter:
            await asyncio.sleep(ENTER_DELAY_S)
            await ctx.require_port().send_key(pane.tmux_id, "Enter")


async def handle(ctx: SendContext, params: Params) -> OkReply:
    from mytty.protocol import wire

    pane = ctx.require_pane(params.pane_id)
    await deliver(ctx, pane, params.text, params.press_enter)
    return wire.ok()
