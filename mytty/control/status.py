"""``setPaneStatus``: an agent's own one-line progress note (memory only; null clears)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import PANE_ID, Arg, Command, Option, Values
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import PaneDirectory, RunWaiter
    from mytty.protocol.replies import OkReply

    class StatusContext(PaneDirectory, RunWaiter, Protocol):
        """What ``status`` uses of the controller."""


NOTE = Arg("TEXT", "status", "the note", optional=True)
PANE = Option(
    "--pane",
    "PANE",
    "paneID",
    "the pane (default: your own, $MYTTY_SURFACE_ID)",
    kind=PANE_ID,
    required=True,
    env_default="MYTTY_SURFACE_ID",
)


def _client(request: dict[str, object], values: Values) -> None:
    from mytty.core.validation import validate_status

    if "--clear" in values.flags:
        if values.positionals:
            values.fail(codes.USAGE, "give a status text or --clear, not both")
        return None
    if NOTE.key not in request:
        values.fail(codes.USAGE, "give a status text (or --clear to remove it)")
    problem = validate_status(request[NOTE.key])
    if problem is not None:
        values.fail(codes.INVALID_STATUS, problem)
    return None


COMMAND = Command(
    name="status",
    wire="setPaneStatus",
    summary="report your own progress (one line, <= 100 chars)",
    args=(NOTE,),
    options=(PANE, Option("--clear", None, None, "remove the note instead")),
    wire_order=("paneID", "status"),
    client=_client,
    errors=(
        codes.INVALID_STATUS,
        codes.PANE_NOT_FOUND,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE, codes.INVALID_STATUS),
    heading="status",
    guide="""\
Report your own phase ("running tests"); it shows up as statusNote in list and in job
snapshots. Cleared automatically when your run starts or ends.""",
    doc="""
```sh
mytty-ctl status "running tests"            # your own pane ($MYTTY_SURFACE_ID)
mytty-ctl status "reviewing" --pane "$pane"
mytty-ctl status --clear [--pane PANE]
```

An agent's one-line note about its own progress. It shows as `statusNote` in `list` and in job
snapshots and never changes run state. A note is non-empty, at most 100 characters (Unicode
scalars), with no control or format characters; this is checked before connecting and again by
the controller. Notes live in memory only and are cleared automatically when an event of kind
`started`, `idle`, `succeeded`, `failed` or `disconnected` arrives for the pane (see
[status notes](event-protocol.md#status-notes)). Without `--pane` and without
`MYTTY_SURFACE_ID`: `usage`. `--clear` together with a text: `usage`.

Request `{"type":"setPaneStatus","paneID":"<UUID>","status":"running tests"}`; leaving out
`status` (or `null`) clears. Reply `{"type":"ok"}`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("pane_id", "status")

    def __init__(self, pane_id: str, status: str | None) -> None:
        self.pane_id = pane_id
        self.status = status


def parse(request: Request) -> Params:
    return Params(request.text(PANE), request.optional_text(NOTE))


async def handle(ctx: StatusContext, params: Params) -> OkReply:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.validation import validate_status
    from mytty.protocol import wire

    if params.status is not None:
        problem = validate_status(params.status)
        if problem is not None:
            raise MyttyError(ErrorCode.INVALID_STATUS, problem)
    pane = ctx.require_pane(params.pane_id)
    if params.status is None:
        ctx.hub.notes.clear(pane.surface_id)
    else:
        ctx.hub.notes.set(pane.surface_id, params.status)
    ctx.hub.bump()  # a change of the pane: waiters and the tmux options follow
    return wire.ok()
