"""``mytty attention``: what needs a human (approvals, questions, failures, disconnects, long
completions) as a table, as JSON, or as a live view (``--watch``); ``--ack`` and ``--ack-all``
mark items as seen.

The live view never polls the controller: it long-polls ``events`` (the ledger of agent
events) and re-reads the list each time records arrive — or when the poll's timeout passes,
which also picks up acknowledgements made elsewhere (those are not agent events). Between
answers only the ages tick, redrawn locally once a second. Ctrl-C ends it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import typer

from mytty.cli import client, popup
from mytty.cli.hosts import fanout, views
from mytty.core.attention.items import need_word
from mytty.core.errors import ErrorCode

#: Below this many columns for the message, items are listed one block each, not as a table.
_MIN_MESSAGE_COLUMNS = 24


def command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    show_all: bool = typer.Option(
        False, "--all", help="Also list resolved and acknowledged items (kept 24 h)."
    ),
    ack: list[str] = typer.Option(
        [],
        "--ack",
        help="Mark a run's open items as seen (its run id or a unique prefix; repeatable).",
    ),
    ack_all: bool = typer.Option(
        False, "--ack-all", help="Mark every open item as seen (and say how many)."
    ),
    live: bool = typer.Option(
        False, "--watch", help="A live view that follows the events (Ctrl-C stops it)."
    ),
    hosts: str | None = typer.Option(
        None,
        "--hosts",
        help="Also the open items of other hosts: all, or NAME[,NAME…] (see `mytty hosts`).",
    ),
) -> None:
    """What needs a human: approvals, questions, failures, disconnects, long completions."""
    if live and as_json:
        client.fail(ErrorCode.USAGE, "--watch is for humans; scripts long-poll `mytty-ctl events`")
    with client.exit_on_error():
        names = fanout.selected(hosts)
        values: dict[str, object] = {}
        listed = client.request("attention").get("items", []) if ack or ack_all else []
        if ack:
            local = views.acknowledge(ack)  # a run b:RUN is acknowledged on host b
            if local:
                values["acknowledge"] = _resolve_runs(local, listed)
        if ack_all:
            values["acknowledgeAll"] = True
        reply = client.request("attention", values)
        remote = views.followed(names, refresh=bool(ack)) if names else []
    if "acknowledge" in values or ack_all:  # (another host's runs are said by views)
        client.say(_acknowledged(listed, reply.get("items", [])))
    if live:
        with client.exit_on_error():
            watch(show_all, names)
        return
    every = reply.get("items", [])
    items = every if show_all else [i for i in every if not i.get("resolvedAt")]
    if names:
        items = [{**i, "host": None} for i in items] + views.items_of(remote)
    if as_json:
        extra = {"hosts": [_host_json(h) for h in remote]} if names else {}
        typer.echo(json.dumps({**reply, "items": items, **extra}, ensure_ascii=False))
        return
    _print_attention(items, hidden=len(every) - len(items), show_state=show_all, hosts=remote)


def _host_json(host: dict[str, Any]) -> dict[str, Any]:
    return {k: host.get(k) for k in ("name", "state", "since", "lastSeen", "error")}


def _acknowledged(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """``acknowledged 3 items``: the items open before the request and resolved after it."""

    def key(item: dict[str, Any]) -> tuple[str, str, str]:
        return (str(item["runID"]), str(item["kind"]), str(item["createdAt"]))

    resolved = {key(i) for i in after if i.get("resolvedAt")}
    count = sum(1 for i in before if not i.get("resolvedAt") and key(i) in resolved)
    return f"acknowledged {count} item{'' if count == 1 else 's'}"


def _resolve_runs(wanted: list[str], items: list[dict[str, Any]]) -> list[str]:
    """Full run ids for ``--ack`` arguments: a run id, or a unique prefix of one (as shown)."""
    runs = sorted({str(item["runID"]) for item in items})
    resolved: list[str] = []
    for text in wanted:
        key = text.strip().upper()
        matches = [r for r in runs if r == key] or [r for r in runs if key and r.startswith(key)]
        if len(matches) != 1:
            why = f"matches {len(matches)} runs; give more of it" if matches else "has no item"
            client.fail(
                ErrorCode.RUN_NOT_FOUND,
                f"run {text!r} {why} (`mytty attention --all` lists the runs); "
                "nothing was acknowledged",
            )
        resolved.append(matches[0])
    return resolved


def _print_attention(
    items: list[dict[str, Any]],
    *,
    hidden: int,
    show_state: bool,
    hosts: list[dict[str, Any]] | None = None,
) -> None:
    from rich import box
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    console = client.console()
    notes = [line for line in map(views.note, hosts or []) if line]
    if not items:
        more = f" ({hidden} resolved hidden; --all lists them)" if hidden else ""
        console.print(Text("Nothing needs you right now." + more))
        for line in notes:
            console.print(Text(line, style="dim"))
        return
    now = time.time()
    rows = [
        {
            **({"host": _host_cell(item)} if hosts else {}),
            "pane": item.get("location") or "(closed)",
            "label": item.get("label") or "-",
            "run": str(item["runID"])[:8],
            "provider": item["provider"],
            "needs": need_word(item["kind"]),
            "age": popup.age(item["createdAt"], now),
            **({"state": "resolved" if item.get("resolvedAt") else "open"} if show_state else {}),
            "message": item.get("message") or "",
        }
        for item in items
    ]
    fixed = [column for column in rows[0] if column != "message"]
    # Each column is as wide as its widest cell or header, plus 3 for padding and the gap.
    width = sum(max(len(c), *(len(r[c]) for r in rows)) + 3 for c in fixed)
    if console.width - width >= _MIN_MESSAGE_COLUMNS:
        table = Table(title="mytty attention", box=box.SIMPLE_HEAD, pad_edge=False)
        for column in rows[0]:
            wrap = column == "message"
            table.add_column(column, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis")
        for row in rows:
            table.add_row(*(Text(value) for value in row.values()))
        console.print(table)
        for line in notes:
            console.print(Text(line, style="dim"))
        return
    # A narrow pane: one block per item, nothing cut off, the message on lines of its own.
    console.print(Text("mytty attention", style="bold"))
    for row in rows:
        state = f" ({row['state']})" if "state" in row else ""
        console.print(Text(f"{row['pane']}  {row['label']}  {row['needs']}{state}  {row['age']}"))
        console.print(Text(f"  {row['provider']}, run {row['run']}"))
        if row["message"]:
            console.print(Padding(Text(row["message"], style="dim"), (0, 0, 0, 2), expand=False))
    for line in notes:
        console.print(Text(line, style="dim"))


def _host_cell(item: dict[str, Any]) -> str:
    host = item.get("host")
    if host is None:
        return "here"
    return f"{host} (stale)" if item.get("stale") else str(host)


# -- the live view (--watch) -------------------------------------------------------------------
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

        shown = self.items if self.show_all else [i for i in self.items if not i.get("resolvedAt")]
        footer = Text(f"{self.status} · Ctrl-C to stop", style="dim")
        if not shown:
            return Group(Text("Nothing needs you right now."), footer)
        table = Table(title="mytty attention", box=box.SIMPLE_HEAD, pad_edge=False, expand=True)
        for column in ("pane", "provider", "needs", "age", "message"):
            table.add_column(column, no_wrap=column != "message", overflow="fold")
        styles = {"approval": "bold yellow", "question": "bold yellow", "failure": "bold red"}
        for item, row in zip(shown, popup.rows(shown, time.time()), strict=True):
            style = "dim" if item.get("resolvedAt") else styles.get(row[2], "")
            table.add_row(*(Text(cell, style=style) for cell in row))
        return Group(table, footer)


def watch(show_all: bool, hosts: list[str] | None = None) -> None:
    """Show the live view until Ctrl-C (MyttyError when the controller stops answering).
    ``hosts``: other hosts' open items too (as this machine's controller last saw them)."""
    view = AttentionView(show_all)

    def refresh(status: str) -> None:
        local: list[dict[str, Any]] = client.request("attention").get("items", [])
        view.items = local + views.items_of(views.followed(hosts)) if hosts else local
        view.status = status

    client.follow(view, refresh)
