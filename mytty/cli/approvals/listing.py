"""``mytty approvals [--json] [--watch]`` and ``mytty approvals log``: what waits, and the audit.

``--json`` prints the controller's objects; ``--watch`` is a live view that long-polls the
event ledger (like ``mytty attention --watch``), the ages and holds ticking locally. A command
(its action) comes from an agent and may hold anything: control characters are shown escaped
(``\\x1b``), never sent to the terminal.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode
from mytty.core.hosts.ids import split

#: The most of an action a table row shows.
ACTION_CHARS = 160

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

app = typer.Typer(
    help="Agents' permission requests waiting now, oldest first (log: every one and its outcome).",
    invoke_without_command=True,
    no_args_is_help=False,
)


def printable(text: str) -> str:
    """``text`` with control characters escaped (``\\n`` → ``\\x0a``), safe for a terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def parse_duration(text: str) -> float:
    """``30s``, ``10m``, ``2h``, ``1d``, ``1w`` or plain seconds; ValueError otherwise."""
    found = _DURATION.match(text)
    if found is None:
        raise ValueError(f"{text!r} is not a duration such as 30s, 10m, 2h or 1d")
    return float(found.group(1)) * _UNITS[found.group(2)]


def _seconds_left(value: object) -> str:
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.0f}s"


def _age(seconds: object) -> str:
    if not isinstance(seconds, int | float):
        return "?"
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m"
    return f"{whole // 3600}h{(whole % 3600) // 60:02d}m"


def row(entry: dict[str, Any]) -> dict[str, str]:
    """One request as a table row: every cell one printable line."""
    action = printable(str(entry.get("action") or ""))
    if len(action) > ACTION_CHARS:
        action = action[: ACTION_CHARS - 1] + "…"
    if entry.get("truncated"):
        action += " (cut)"
    return {
        "host": _host_cell(entry),
        "id": short_id(entry["id"]),
        "pane": entry.get("location") or "(closed)",
        "label": printable(entry.get("label") or "-"),
        "provider": entry["provider"],
        "tool": printable(entry["tool"]),
        "action": action,
        "age": _age(entry.get("ageSeconds")),
        "hold": _seconds_left(entry.get("holdLeftSeconds")),
    }


def short_id(value: object) -> str:
    """The id as a table shows it: its first 8 characters, after its host when qualified
    (``b:0F1E2D3C``); what is shown is a prefix ``mytty approve`` takes."""
    host, bare = split(str(value))
    return f"{host}:{bare[:8]}" if host is not None else bare[:8]


def _host_cell(entry: dict[str, Any]) -> str:
    host = entry.get("host")
    return str(host) if host else "here"


def _table(entries: list[dict[str, Any]], title: str, columns: list[str]) -> Any:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, expand=True)
    for column in columns:
        table.add_column(column, no_wrap=column != "action", overflow="fold")
    for entry in entries:
        cells = row(entry) | _outcome(entry)
        table.add_row(*(Text(cells[c]) for c in columns))
    return table


def _outcome(entry: dict[str, Any]) -> dict[str, str]:
    latency = entry.get("latencyMs")
    return {
        "when": str(entry.get("requestedAt") or ""),
        "state": str(entry.get("state")),
        "decision": str(entry.get("decision") or "-"),
        "by": printable(str(entry.get("decidedBy") or "-")),
        "latency": f"{latency / 1000:.1f}s" if isinstance(latency, int) else "-",
    }


LIST_COLUMNS = ["id", "pane", "label", "provider", "tool", "action", "age", "hold"]
LOG_COLUMNS = ["when", "id", "pane", "label", "tool", "action", "decision", "by", "latency"]


@app.callback()
def command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the requests as a JSON array."),
    live: bool = typer.Option(
        False, "--watch", help="A live view that follows the events (Ctrl-C stops it)."
    ),
    hosts: str | None = typer.Option(
        None,
        "--hosts",
        help="Also the requests of other hosts: all, or NAME[,NAME…] (see `mytty hosts`).",
    ),
) -> None:
    """The open permission requests of every agent (oldest first)."""
    if ctx.invoked_subcommand is not None:
        return
    if live and as_json:
        client.fail(
            ErrorCode.USAGE, "--watch is for humans; scripts poll `mytty-ctl approval list`"
        )
    if live and hosts:
        client.fail(
            ErrorCode.USAGE,
            "--watch follows this host's requests; `mytty attention --hosts all --watch` "
            "follows other hosts' items",
        )
    failures: list[tuple[str, str]] = []
    with client.exit_on_error():
        if live:
            watch()
            return
        names = _hosts(hosts)
        entries = client.request("listApprovals")["approvals"]
        if names:
            from mytty.cli.hosts import views

            remote, failures = views.approvals_of(names)
            entries = [{**e, "host": None} for e in entries] + remote
    for name, why in failures:  # the requests of the hosts that answered are still shown
        typer.echo(f"mytty: host {name}: {why}", err=True)
    if as_json:
        typer.echo(json.dumps(entries, ensure_ascii=False))
        return
    console = client.console()
    if not entries:
        console.print("No permission request is waiting.")
        return
    columns = LIST_COLUMNS if not names else ["host", *LIST_COLUMNS]
    console.print(_table(entries, "mytty approvals", columns))


def _hosts(option: str | None) -> list[str]:
    if not option:
        return []
    from mytty.cli.hosts import fanout

    return fanout.selected(option)


@app.command("log")
def log_command(
    as_json: bool = typer.Option(False, "--json", help="Print the entries as a JSON array."),
    since: str | None = typer.Option(
        None,
        "--since",
        metavar="DURATION",
        help="Only the last DURATION (30s, 10m, 2h, 1d); default: all.",
    ),
) -> None:
    """Every permission request and its outcome, newest first."""
    values: dict[str, object] = {}
    if since is not None:
        try:
            values["sinceSeconds"] = parse_duration(since)
        except ValueError as exc:
            client.fail(ErrorCode.USAGE, str(exc))
    with client.exit_on_error():
        entries = client.request("approvalLog", values)["entries"]
    if as_json:
        typer.echo(json.dumps(entries, ensure_ascii=False))
        return
    console = client.console()
    if not entries:
        console.print("No permission request yet.")
        return
    console.print(_table(entries, "mytty approvals log", LOG_COLUMNS))


# -- the live view ---------------------------------------------------------------------------
class ApprovalsView:
    """The table, rebuilt at every redraw so the ages and holds tick."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.fetched = time.monotonic()
        self.status = "connecting…"

    def __rich__(self) -> Any:
        from rich.console import Group
        from rich.text import Text

        footer = Text(f"{self.status} · Ctrl-C to stop", style="dim")
        if not self.entries:
            return Group(Text("No permission request is waiting."), footer)
        passed = time.monotonic() - self.fetched
        ticked = []
        for entry in self.entries:
            age, left = entry.get("ageSeconds"), entry.get("holdLeftSeconds")
            ticked.append(
                {
                    **entry,
                    "ageSeconds": age + passed if isinstance(age, int | float) else age,
                    "holdLeftSeconds": max(0.0, left - passed)
                    if isinstance(left, int | float)
                    else left,
                }
            )
        return Group(_table(ticked, "mytty approvals", LIST_COLUMNS), footer)


def watch() -> None:
    """The live view until Ctrl-C (MyttyError when the controller stops answering)."""
    view = ApprovalsView()

    def refresh(status: str) -> None:
        view.entries = client.request("listApprovals")["approvals"]
        view.fetched = time.monotonic()
        view.status = status

    client.follow(view, refresh)
