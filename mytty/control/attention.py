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

import time
from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import JobStore, PaneDirectory, RunWaiter
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import SurfaceId
from mytty.protocol import wire
from mytty.protocol.replies import AttentionReply

TYPE = "attention"
ERRORS = frozenset({ErrorCode.INVALID_REQUEST, ErrorCode.RUN_NOT_FOUND, ErrorCode.INTERNAL_ERROR})


def _whereabouts(ctx: AttentionContext, pane_id: SurfaceId) -> tuple[str | None, str | None]:
    """The pane as tmux names it (``session:window.pane``) and the label of its job."""
    pane = ctx.panes.get(pane_id)
    row = pane.row if pane is not None else None
    location = None if row is None else f"{row.session_name}:{row.window_index}.{row.pane_index}"
    return location, ctx.jobs.label_for_pane(pane_id)


class AttentionContext(RunWaiter, PaneDirectory, JobStore, Protocol):
    """What ``attention`` uses of the controller."""


async def handle(ctx: AttentionContext, params: Params) -> AttentionReply:
    now = time.time()
    runs = {run.upper() for run in params.str_list("acknowledge")}
    everything = params.bool("acknowledgeAll", False)
    listed = ctx.hub.attention.items(now)
    unknown = sorted(runs - {i.run_id for i in listed})
    if unknown:
        raise MyttyError(
            ErrorCode.RUN_NOT_FOUND,
            f"no attention item belongs to run {', '.join(unknown)}; nothing was acknowledged",
        )
    wanted = {i.id for i in listed if i.actionable and (everything or i.run_id in runs)}
    await ctx.hub.acknowledge(wanted, now)  # store first, then memory
    items = ctx.hub.attention.items(now)
    return wire.attention_reply(items, lambda pane_id: _whereabouts(ctx, pane_id))
