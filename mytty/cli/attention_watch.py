"""``mytty attention --watch``: the attention list as a live view that follows the events.

It never polls the controller: it long-polls ``events`` (the ledger of agent events) and
re-reads the list each time records arrive — or when the poll's timeout passes, which also
picks up acknowledgements made elsewhere (those are not agent events). Between answers only
the ages tick, redrawn locally once a second. Ctrl-C ends it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: How long one events poll waits for a record (seconds).
POLL_TIMEOUT_S = 30.0


class AttentionView:
    """The table, rebuilt at every redraw so the ages are current."""

    def __init__(self, show_all: bool) -> None:
        self.items: list[dict[str, Any]] = []
        self.show_all = show_all
        self.status = "connecting…"

    def __rich__(self) -> Any:
        from rich import box
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        from mytty.cli.popup import rows

        shown = self.items if self.show_all else [i for i in self.items if not i.get("resolvedAt")]
        footer = Text(f"{self.status} · Ctrl-C to stop", style="dim")
        if not shown:
            return Group(Text("Nothing needs you right now."), footer)
        table = Table(title="mytty attention", box=box.SIMPLE_HEAD, pad_edge=False, expand=True)
        for column in ("pane", "provider", "needs", "age", "message"):
            table.add_column(column, no_wrap=column != "message", overflow="fold")
        styles = {"approval": "bold yellow", "question": "bold yellow", "failure": "bold red"}
        for item, row in zip(shown, rows(shown, time.time()), strict=True):
            style = "dim" if item.get("resolvedAt") else styles.get(row[2], "")
            table.add_row(*(Text(cell, style=style) for cell in row))
        return Group(table, footer)


def watch(request: Callable[..., dict[str, Any]], show_all: bool) -> None:
    """Show the live view until Ctrl-C; ``request(obj, timeout=…)`` asks the controller."""
    from rich.console import Console
    from rich.live import Live

    view = AttentionView(show_all)
    cursor = request({"type": "events"})["latestSequence"]
    view.items = request({"type": "attention"}).get("items", [])
    view.status = "up to date"
    try:
        with Live(view, console=Console(highlight=False), refresh_per_second=1):
            while True:
                page = request(
                    {"type": "events", "afterSequence": cursor, "timeoutSeconds": POLL_TIMEOUT_S},
                    timeout=POLL_TIMEOUT_S + 15,
                )
                cursor = page["latestSequence"]
                view.items = request({"type": "attention"}).get("items", [])
                view.status = f"updated {time.strftime('%H:%M:%S')}"
    except KeyboardInterrupt:
        return
