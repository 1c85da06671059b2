"""``attention``: the attention items (what needs a human), newest first.

``acknowledge`` (a list of run ids: every open item of those runs) or ``acknowledgeAll``
marks items as seen first; acknowledged items stop being actionable and are
dropped 24 h later. Acknowledgements are stored, so they survive a restart. A run id with no
item at all is ``run-not-found`` and nothing is acknowledged (a typo must not pass silently).

Besides the original's fields each item carries ``location`` (the pane as tmux shows it,
``session:window.pane``, or null once the pane is gone) and ``label`` (the label of the job
running in that pane, or null) so a human can find the pane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import LIST, Command, Option
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import JobStore, PaneDirectory, RunWaiter
    from mytty.core.ids import SurfaceId
    from mytty.protocol.replies import AttentionReply

    class AttentionContext(RunWaiter, PaneDirectory, JobStore, Protocol):
        """What ``attention`` uses of the controller."""


COMMAND = Command(
    name=None,
    wire="attention",
    summary="what needs a human (used by `mytty attention`)",
    options=(
        Option(
            "--acknowledge",
            "RUNS",
            "acknowledge",
            "first mark every open item of these runs as seen (run ids)",
            kind=LIST,
        ),
        Option("--acknowledge-all", None, "acknowledgeAll", "first mark every open item as seen"),
    ),
    errors=(codes.INVALID_REQUEST, codes.RUN_NOT_FOUND, codes.INTERNAL_ERROR),
    doc="""
`{"type":"attention", "acknowledge"?: [RUN_ID…], "acknowledgeAll"?: bool}` →
`{"type":"attention","items":[{"paneID","runID","provider","kind","message","createdAt","resolvedAt","location","label"}]}`
(acknowledging first, when asked; a run id with no item is `run-not-found` and nothing is
acknowledged). `location` is the pane as tmux names it (`session:window.pane`, null once the
pane is gone) and `label` the label of the job in that pane (or null); both are additions to
the original's item. See [attention items](event-protocol.md#attention-items);
`mytty attention --json --all` prints this reply.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("everything", "runs")

    def __init__(self, runs: frozenset[str], everything: bool) -> None:
        self.runs = runs
        self.everything = everything


def parse(request: Request) -> Params:
    return Params(
        frozenset(run.upper() for run in request.str_list("acknowledge")),
        request.bool("acknowledgeAll", False),
    )


def _whereabouts(ctx: AttentionContext, pane_id: SurfaceId) -> tuple[str | None, str | None]:
    """The pane as tmux names it (``session:window.pane``) and the label of its job."""
    pane = ctx.panes.get(pane_id)
    row = pane.row if pane is not None else None
    location = None if row is None else f"{row.session_name}:{row.window_index}.{row.pane_index}"
    return location, ctx.jobs.label_for_pane(pane_id)


async def handle(ctx: AttentionContext, params: Params) -> AttentionReply:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.protocol import wire

    now = ctx.hub.now()
    listed = ctx.hub.attention.items(now)
    unknown = sorted(params.runs - {i.run_id for i in listed})
    if unknown:
        raise MyttyError(
            ErrorCode.RUN_NOT_FOUND,
            f"no attention item belongs to run {', '.join(unknown)}; nothing was acknowledged",
        )
    wanted = {
        i.id for i in listed if i.actionable and (params.everything or i.run_id in params.runs)
    }
    await ctx.hub.acknowledge(wanted, now)  # store first, then memory
    items = ctx.hub.attention.items(now)
    return wire.attention_reply(items, lambda pane_id: _whereabouts(ctx, pane_id))
