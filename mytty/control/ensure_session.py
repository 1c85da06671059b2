"""``ensureSession``: make sure the ``mytty`` session exists (used by ``mytty up``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import PaneFactory
    from mytty.protocol.replies import SessionReply

    class EnsureSessionContext(PaneFactory, Protocol):
        """What ``ensure_session`` uses of the controller."""


COMMAND = Command(
    name=None,
    wire="ensureSession",
    summary="make sure the mytty session exists (used by `mytty up`)",
    errors=(codes.TMUX_UNAVAILABLE, codes.NEW_TAB_FAILED),
    doc="""
`{"type":"ensureSession"}` → `{"type":"session","name":"mytty","tmuxSocket":"<path>"}`
(creates the `mytty` session if missing).
""",
)


class Params:
    """This request has no fields."""

    __slots__ = ()


def parse(request: Request) -> Params:
    return Params()


async def handle(ctx: EnsureSessionContext, params: Params) -> SessionReply:
    from mytty.protocol import wire

    session = await ctx.ensure_user_session()
    return wire.session_reply(session, ctx.tmux_socket)
