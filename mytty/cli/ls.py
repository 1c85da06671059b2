"""``mytty ls`` (alias ``mytty status``): every pane with its agent state, for humans.

The state is read from tmux itself — the ``@mytty_*`` options the controller publishes (see
docs/reference/tmux-options.md) — with one ``list-panes``, so the table never waits for the
controller. One request to the controller (``agent list --all``, answered within a second or
left out) checks that it runs (a stopped controller removes its options, so every pane would
look idle: that is said) and brings each job's memory and CPU figures, sampled for this read
(the controller samples processes only while someone reads them).
"""

from __future__ import annotations

import json
import time
from typing import Any

import typer

from mytty.cli import client
from mytty.cli.hosts import fanout, views
from mytty.cli.tmux_cmd import server_socket
from mytty.core.errors import ErrorCode
from mytty.core.events import format_timestamp
from mytty.tmux.port import PRIVATE_SESSION

#: Colour of each state in the table (rich style names).
STATE_STYLES = {
    "running": "green",
    "waiting-approval": "bold yellow",
    "waiting-input": "bold yellow",
    "launching": "cyan",
    "parked": "yellow",
    "failed": "bold red",
    "launch-failed": "bold red",
    "disconnected": "magenta",
    "lost": "magenta",
    "succeeded": "blue",
    "queued": "cyan",
    "idle": "dim",
    "unknown": "dim",
}
_COLUMNS = (
    "pane",
    "provider",
    "state",
    "job",
    "label",
    "note",
    "attention",
    "tokens",
    "cost",
    "rss",
    "cpu",
    "age",
)


def age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"
    return f"{seconds // 86400}d"


def tokens(count: int | None) -> str:
    """A token count short enough for a column: 950, 12.3k, 4.1M."""
    if count is None:
        return ""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def dollars(cost: float | None) -> str:
    """A cost short enough for a column: $0.0042, $1.27, $312."""
    if cost is None:
        return ""
    if cost < 0.01:
        return f"${cost:.4f}"
    if cost < 100:
        return f"${cost:.2f}"
    return f"${cost:,.0f}"


def size(count: int | None) -> str:
    """Resident memory for a column: 512M, 1.4G."""
    if count is None:
        return ""
    mb = count / (1024 * 1024)
    return f"{mb:.0f}M" if mb < 1024 else f"{mb / 1024:.1f}G"


def _number(text: str) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def entries(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The panes as JSON objects (empty values become null), the controller's own left out."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if row["session_name"] == PRIVATE_SESSION:
            continue
        since = row["@mytty_since"]
        out.append(
            {
                "pane": row["pane_id"],
                "location": f"{row['session_name']}:{row['window_index']}.{row['pane_index']}",
                "paneID": row["@mytty_surface"] or None,
                "command": row["pane_current_command"] or None,
                "provider": row["@mytty_provider"] or None,
                "state": row["@mytty_state"] or None,
                "job": row["@mytty_job"] or None,
                "label": row["@mytty_label"] or None,
                "note": row["@mytty_note"] or None,
                "attention": row["@mytty_attention"] or None,
                "tokens": int(row["@mytty_tokens"]) if row["@mytty_tokens"].isdigit() else None,
                "costUsd": _number(row["@mytty_cost"]),
                "rssBytes": int(row["@mytty_rss"]) if row["@mytty_rss"].isdigit() else None,
                "cpuPercent": _number(row["@mytty_cpu"]),
                "since": format_timestamp(float(since)) if since.isdigit() else None,
                "sinceEpoch": int(since) if since.isdigit() else None,
            }
        )
    return out


def table_rows(panes: list[dict[str, Any]], now: float) -> list[dict[str, str]]:
    rows = []
    for pane in panes:
        job = pane["job"] or ""
        if pane.get("host"):
            job = job.split(":", 1)[-1]
        rows.append(
            {
                "host": pane.get("host") or "here",
                "pane": pane["location"],
                # Only an agent's provider: a shell or `top` is no provider (the issue 26 trial).
                "provider": pane["provider"] or "",
                "state": pane["state"] or "-",
                "job": job[:8],
                "label": pane["label"] or "",
                "note": pane["note"] or "",
                "attention": pane["attention"] or "",
                "tokens": tokens(pane["tokens"]),
                "cost": dollars(pane["costUsd"]),
                "rss": size(pane["rssBytes"]),
                "cpu": f"{pane['cpuPercent']:.0f}%" if pane["cpuPercent"] is not None else "",
                "age": age(now - pane["sinceEpoch"]) if pane["sinceEpoch"] is not None else "",
            }
        )
    return rows


def show(tmux_socket: str | None, as_json: bool, hosts: str | None = None) -> None:
    from mytty.tmux.bootstrap import tmux_binary
    from mytty.tmux.user_formats import TmuxCli, TmuxCliError, published_panes

    try:
        with client.exit_on_error():
            names = fanout.selected(hosts)
            cli = TmuxCli(server_socket(tmux_socket), tmux_binary())
            panes = entries(published_panes(cli))
    except TmuxCliError as exc:
        client.fail(ErrorCode.TMUX_UNAVAILABLE, str(exc))
    running, figures = _job_figures()
    merge_figures(panes, figures)
    failures: list[tuple[str, str]] = []
    if names:
        panes = [{**pane, "host": None} for pane in panes]
        for name, answer in views.remote_panes(names):
            if isinstance(answer, list):
                panes += answer
            else:
                failures.append((name, f"{answer.code.value}: {answer.message}"))
    if as_json:
        extra: dict[str, Any] = {}
        if names:
            extra["hostErrors"] = [{"host": n, "error": e} for n, e in failures]
        typer.echo(
            json.dumps({"controllerRunning": running, "panes": panes, **extra}, ensure_ascii=False)
        )
        return
    _print(panes, running, hosts=bool(names))
    from rich.text import Text

    console = client.console()
    for name, error in failures:
        console.print(Text(f"{name}: not shown: {error}", style="bold red"))


def _job_figures() -> tuple[bool, dict[str, dict[str, Any]]]:
    """Whether the controller answers, and each job's snapshot from it (fresh figures)."""
    from mytty.core.errors import MyttyError

    try:
        reply = client.request("listAgents", {"allLeads": True}, timeout=client.PROBE_TIMEOUT_S)
    except MyttyError as exc:
        return exc.code is not ErrorCode.NOT_RUNNING and client.running(), {}
    jobs = reply.get("jobs") or []
    return True, {str(j["jobID"]["rawValue"]): j for j in jobs if isinstance(j, dict)}


def merge_figures(panes: list[dict[str, Any]], figures: dict[str, dict[str, Any]]) -> None:
    """The controller's fresh memory, CPU and cost figures over what tmux had published."""
    for pane in panes:
        job = figures.get(pane["job"] or "")
        if job is None:
            continue
        for key in ("rssBytes", "cpuPercent", "costUsd"):
            if job.get(key) is not None:
                pane[key] = job[key]


#: Always shown; the others only when some pane has a value for them.
_ALWAYS = ("pane", "provider", "state")


def layout(rows: list[dict[str, str]], width: int, *, hosts: bool = False) -> list[str] | None:
    """The table's columns for a terminal ``width`` columns wide: the ones with a value in some
    row (``pane``, ``provider`` and ``state`` always; ``host`` with ``hosts``), or None when
    even those don't fit unclipped (one block per pane then). ``note`` wraps, so it counts with
    at most 20."""
    columns = [c for c in _COLUMNS if c in _ALWAYS or any(r[c] for r in rows)]
    if hosts:
        columns.insert(0, "host")
    needed = 0
    for column in columns:
        widest = max([len(column), *(len(r[column]) for r in rows)])
        needed += (min(widest, 20) if column == "note" else widest) + 2  # the gap and padding
    return columns if needed <= width else None


def _print(panes: list[dict[str, Any]], running: bool, *, hosts: bool = False) -> None:
    from rich import box
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    console = client.console()
    rows = table_rows(panes, time.time())
    columns = layout(rows, console.width, hosts=hosts)
    if columns is not None:
        table = Table(title="mytty panes", box=box.SIMPLE_HEAD, pad_edge=False)
        for column in columns:
            wrap = column == "note"
            table.add_column(column, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis")
        for row in rows:
            style = STATE_STYLES.get(row["state"], "")
            cells = [
                Text(row[c], style=style if c in ("state", "attention") else "") for c in columns
            ]
            if row["attention"]:
                cells[columns.index("attention")].stylize("reverse")
            table.add_row(*cells)
        console.print(table)
    else:
        # A narrow pane: one block per pane, nothing cut off.
        console.print(Text("mytty panes", style="bold"))
        for row in rows:
            style = STATE_STYLES.get(row["state"], "")
            where = [row["host"]] if hosts else []
            head = Text("".join(f"{c}  " for c in [*where, row["pane"], row["provider"]] if c))
            head.append(row["state"], style=style)
            console.print(head)
            if row["attention"]:
                need = Text("  needs ")
                need.append(row["attention"], style=f"{style} reverse")
                console.print(need)
            facts = [
                f"{name} {row[key]}"
                for name, key in (
                    ("job", "job"),
                    ("label", "label"),
                    ("tokens", "tokens"),
                    ("cost", "cost"),
                    ("rss", "rss"),
                    ("cpu", "cpu"),
                )
                if row[key]
            ]
            if row["age"]:
                facts.append(f"for {row['age']}")
            if facts:
                console.print(Text("  " + ", ".join(facts)))
            if row["note"]:
                console.print(Padding(Text(row["note"], style="dim"), (0, 0, 0, 2), expand=False))
    if not running:
        console.print(
            Text("The controller is not running: no agent state is published (`mytty start`).")
        )


def command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    tmux_socket: str | None = typer.Option(
        None, "--tmux-socket", help="tmux server socket (default: the running controller's)."
    ),
    hosts: str | None = typer.Option(
        None,
        "--hosts",
        help="Also the panes of other hosts: all, or NAME[,NAME…] (see `mytty hosts`).",
    ),
) -> None:
    """Every pane with its agent's provider, state, job, label, note, need, tokens, cost,
    memory, CPU and age."""
    show(tmux_socket, as_json, hosts)
