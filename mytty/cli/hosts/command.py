"""``mytty hosts add|list|remove``: the other machines whose agents this one shows and starts.

``add`` writes ``[hosts.NAME]`` into ``config.toml`` (keeping the rest of the file as it was)
and then connects once to say what answers there; ``list`` asks every host now (reachable,
mytty version, round-trip time of one request, its agents and attention items) and adds what
this machine's controller last saw of it (current, or stale since when); ``remove`` deletes
the entry and ends its SSH master. Nothing here stores a password or a key: your own ssh and
``~/.ssh/config`` connect.
"""

from __future__ import annotations

import json
import time
from typing import Any

import typer

from mytty.cli import client
from mytty.cli.hosts import fanout
from mytty.core.errors import ErrorCode, MyttyError

app = typer.Typer(
    help="Other machines: add, list and remove the hosts whose agents mytty shows and starts.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.command("add")
def add_command(
    name: str = typer.Argument(..., help="A short name: letters, digits, '-', '_', '.'."),
    destination: str = typer.Argument(..., help="What you would type after `ssh`."),
    ssh_option: list[str] = typer.Option(
        [], "--ssh-option", help="KEY=VALUE, passed to ssh as -o KEY=VALUE (repeatable)."
    ),
    mytty_ctl: str = typer.Option(
        "mytty-ctl", "--mytty-ctl", help="The mytty-ctl command on that host (default: on PATH)."
    ),
    replace: bool = typer.Option(False, "--replace", help="Replace a host of that name."),
    check: bool = typer.Option(True, "--check/--no-check", help="Connect once to check it."),
) -> None:
    """Add a host: ``mytty hosts add build1 me@build1.example.com``."""
    from mytty.core.hosts.config import (
        HostSpec,
        destination_problem,
        ssh_option_problem,
    )
    from mytty.core.hosts.ids import name_problem
    from mytty.daemon.config.hosts_edit import add_host

    problem = (
        name_problem(name)
        or destination_problem(destination)
        or next(filter(None, map(ssh_option_problem, ssh_option)), None)
    )
    if problem is not None:
        client.fail(ErrorCode.USAGE, problem)
    with client.exit_on_error(os_errors=True):
        add_host(
            client.home().root,
            HostSpec(name, destination, tuple(ssh_option), mytty_ctl.strip() or "mytty-ctl"),
            replace=replace,
        )
    client.say(f"added host {name} ({destination}) to {client.home().config_file}")
    if not check:
        return
    entry = probe(name)
    if entry["reachable"]:
        client.say(
            f"{name}: mytty {entry['version']} answers ({entry['rttMs']:.1f} ms), "
            f"{entry['agents']} agent(s), {entry['attention']} attention item(s)"
        )
    else:
        error = entry["error"] or {}
        client.say(f"{name} is not usable yet: {error.get('code')}: {error.get('message')}")


@app.command("remove")
def remove_command(name: str = typer.Argument(..., help="The host's name.")) -> None:
    """Remove a host and end its SSH connection."""
    from mytty.cli.hosts.link import Link
    from mytty.cli.transport import CtlError
    from mytty.daemon.config.hosts_edit import remove_host

    link = Link(name, fanout.link_env())
    try:
        link.spec()
        known = True
    except CtlError:
        known = False
    with client.exit_on_error(os_errors=True):
        removed = remove_host(client.home().root, name)
    if not removed:
        client.fail(ErrorCode.HOST_NOT_FOUND, f"no host {name!r} in {client.home().config_file}")
    if known:
        link.forget()
    client.say(f"removed host {name}")


def probe(name: str) -> dict[str, Any]:
    """One host, asked now: ``name``, ``ssh``, ``reachable``, ``version``, ``rttMs``,
    ``agents``, ``attention``, ``error`` (``{code, message}`` or None)."""
    from mytty.cli.hosts.link import Link
    from mytty.cli.transport import CtlError
    from mytty.core.hosts.state import LIVE_JOB_STATES

    link = Link(name, fanout.link_env())
    entry: dict[str, Any] = {
        "name": name,
        "ssh": None,
        "reachable": False,
        "version": None,
        "rttMs": None,
        "agents": None,
        "attention": None,
        "error": None,
    }
    try:
        entry["ssh"] = link.spec().ssh
        started = time.perf_counter()
        jobs = fanout.request(name, "agent list", {"allLeads": True})["jobs"]
        entry["rttMs"] = round((time.perf_counter() - started) * 1000, 2)
        items = fanout.request(name, "attention")["items"]
        link.ensure()  # the record of the link just used: the handshake, no ssh
        entry.update(
            reachable=True,
            version=link.hello.version if link.hello is not None else None,
            agents=sum(1 for job in jobs if job["state"] in LIVE_JOB_STATES),
            attention=sum(1 for item in items if not item.get("resolvedAt")),
        )
    except MyttyError as exc:
        entry["error"] = {"code": exc.code.value, "message": exc.message}
    except CtlError as exc:  # of the link itself
        entry["error"] = {"code": exc.code, "message": exc.message}
    return entry


def _followed() -> dict[str, dict[str, Any]]:
    """What this machine's controller last saw of each host (nothing when it does not run)."""
    try:
        reply = client.request("hosts", timeout=client.PROBE_TIMEOUT_S)
    except MyttyError:
        return {}
    return {str(h["name"]): h for h in reply.get("hosts", [])}


@app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Every host: reachable now, its mytty, round-trip time, agents, attention items."""
    with client.exit_on_error():
        names = fanout.configured()
    entries = [entry for _, entry in fanout.each(names, probe)]
    followed = _followed()
    for entry in entries:
        assert isinstance(entry, dict)
        seen = followed.get(entry["name"], {})
        entry["state"] = seen.get("state")
        entry["lastSeen"] = seen.get("lastSeen")
    if as_json:
        typer.echo(json.dumps(entries, ensure_ascii=False))
        return
    _print(entries)  # type: ignore[arg-type]


def _print(entries: list[dict[str, Any]]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console = client.console()
    if not entries:
        console.print(Text("No hosts yet: `mytty hosts add NAME USER@HOST` adds one."))
        return
    table = Table(title="mytty hosts", box=box.SIMPLE_HEAD, pad_edge=False)
    for column in ("host", "ssh", "reachable", "mytty", "rtt", "agents", "attention", "seen"):
        table.add_column(column, no_wrap=column != "seen", overflow="fold")
    for e in entries:
        seen = e.get("state") or ""
        if seen == "stale" and e.get("lastSeen"):
            seen = f"stale, last seen {e['lastSeen']}"
        table.add_row(
            *(
                Text(cell, style="" if e["reachable"] else "bold red" if n == 2 else "")
                for n, cell in enumerate(
                    (
                        e["name"],
                        e["ssh"] or "",
                        "yes" if e["reachable"] else "no",
                        e["version"] or "",
                        f"{e['rttMs']:.1f} ms" if e["rttMs"] is not None else "",
                        "" if e["agents"] is None else str(e["agents"]),
                        "" if e["attention"] is None else str(e["attention"]),
                        seen,
                    )
                )
            )
        )
    console.print(table)
    for e in entries:
        if e["error"]:
            console.print(Text(f"{e['name']}: {e['error']['code']}: {e['error']['message']}"))
