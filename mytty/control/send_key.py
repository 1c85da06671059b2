"""``sendKey``: one key press from the key table (key and modifiers checked before the pane)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import LIST, PANE, Arg, Command, Option
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import PaneDirectory, TmuxAccess
    from mytty.protocol.replies import OkReply

    class SendKeyContext(PaneDirectory, TmuxAccess, Protocol):
        """What ``send_key`` uses of the controller."""


KEY = Arg("KEY", "key", "a key name, a character, or C-c style")
MODIFIERS = Option(
    "--modifiers",
    "LIST",
    "modifiers",
    "comma-separated modifiers: shift, control, option, command (or ctrl, alt, meta, ...)",
    kind=LIST,
)

COMMAND = Command(
    name="send-key",
    wire="sendKey",
    summary="one key press (escape, C-c, pageup, f1, a, ...)",
    args=(PANE, KEY),
    options=(MODIFIERS,),
    errors=(
        codes.INVALID_KEY,
        codes.PANE_NOT_FOUND,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    guide="""\
One key press; use it for menus, approval dialogs (the option's number) and Esc.
Keys and modifiers accepted are listed under SEND-KEY NAMES below.""",
    doc="""
One key press, checked **before** the pane (so an unknown key is `invalid-key` and an unknown
modifier `invalid-request` even for a pane that does not exist). Accepted, in any letter case:

- tmux's own key names and their aliases: `Escape` (`esc`), `Tab`, `BTab` (`backtab`),
  `Enter` (`return`), `BSpace` (`delete`, the seed's name for Backspace, and `backspace`),
  `DC` (`del`, forward delete), `IC` (`insert`), `Space`, `Up`, `Down`, `Left`, `Right`,
  `Home`, `End`, `PPage` (`pageup`, `PgUp`), `NPage` (`pagedown`, `PgDn`), `F1` … `F12`;
- any single printable ASCII character (`A` is a capital A, `a` a small one);
- modifier prefixes written into the key: `C-c`, `ctrl-c`, `ctrl+shift+tab`, `M-x`.

`--modifiers` is comma-separated: `shift` (`s`), `control` (`ctrl`, `ctl`, `c`), `option` and
`command` (`alt`, `meta`, `m`, `opt`, `cmd`, `super`), any letter case; `option` and `command`
both become Meta (a terminal has no Command key). `shift` + letter sends the capital letter,
`shift` + `tab` sends back-tab. `mytty-ctl guide` lists the same table.

Request `{"type":"sendKey","paneID":"<UUID>","key":"c","modifiers":["control"]}`. Reply `{"type":"ok"}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("key", "modifiers", "pane_id")

    def __init__(self, pane_id: str, key: str, modifiers: list[str]) -> None:
        self.pane_id = pane_id
        self.key = key
        self.modifiers = modifiers


def parse(request: Request) -> Params:
    return Params(request.text(PANE), request.text(KEY), request.items(MODIFIERS))


async def handle(ctx: SendKeyContext, params: Params) -> OkReply:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.keys import ModifierError, UnknownKeyError, tmux_key
    from mytty.protocol import wire

    try:
        name = tmux_key(params.key, params.modifiers)
    except ModifierError as exc:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST,
            f"unknown modifier {exc.args[0]!r}; use shift, control, option or command "
            "(see mytty-ctl guide for the other spellings)",
        ) from None
    except UnknownKeyError:
        raise MyttyError(
            ErrorCode.INVALID_KEY,
            f"unknown key {params.key!r}; use a tmux key name (Escape, Enter, Tab, BSpace, "
            "Up, PPage, F1, ...), C-c style, or a single character (see mytty-ctl guide)",
        ) from None
    pane = ctx.require_pane(params.pane_id)
    async with ctx.pane_lock(pane.surface_id):
        await ctx.require_port().send_key(pane.tmux_id, name)
    return wire.ok()
