"""``mytty limits``: workers parked at their provider's usage limit, and what happens next.

``mytty limits [--json]`` lists each account with parked workers (the reset its provider gave,
mytty's next continuation) and each parked job; ``mytty limits resume JOB…|--all`` continues
them now, ``mytty limits hold JOB…`` keeps them parked until ``resume``. The requests are
``listLimits``, ``resumeLimits`` and ``holdLimits`` (docs/reference/mytty-ctl.md#usage-limits);
``--json`` prints the controller's reply: ``accounts`` and ``jobs`` (each with ``jobID``,
``provider``, ``parkedUntil``, ``resumesAt``, ``limit``, ``account``, …).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode

app = typer.Typer(help="Workers parked at their usage limit: list, resume now, hold.")


def _when(stamp: object) -> str:
    return str(stamp).replace("T", " ").replace("Z", " UTC") if stamp else "—"


def _print(reply: Mapping[str, Any], *, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(reply, ensure_ascii=False, sort_keys=True))
        return
    from rich.markup import escape
    from rich.table import Table

    console = client.console()
    jobs = reply.get("jobs") or []
    if not jobs:
        console.print("No worker is parked at a usage limit.")
        return
    accounts = Table(title="accounts at their usage limit")
    for column in ("account", "resets", "next resume", "parked"):
        accounts.add_column(column)
    for a in reply.get("accounts") or []:
        accounts.add_row(
            escape(str(a.get("label") or a.get("account"))),
            _when(a.get("parkedUntil")),
            _when(a.get("nextResumeAt")),
            str(len(a.get("jobs") or [])),
        )
    console.print(accounts)
    table = Table(title="parked jobs")
    for column in ("job", "label", "provider", "limit", "resets", "resumes", "held", "sends"):
        table.add_column(column)
    for j in jobs:
        table.add_row(
            str(j["jobID"]["rawValue"])[:8],
            escape(str(j.get("label") or "")),
            str(j.get("provider")),
            escape(str(j.get("limit") or "?")),
            _when(j.get("parkedUntil")),
            _when(j.get("resumesAt")) if not j.get("held") else "held",
            f"streak {j.get('streak')}" if j.get("held") else "",
            str(j.get("heldSends") or ""),
        )
    console.print(table)


@app.callback(invoke_without_command=True)
def list_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Each account's parked workers, its reset and mytty's next continuation."""
    if ctx.invoked_subcommand is not None:
        return
    with client.exit_on_error():
        reply = client.request("listLimits")
    _print(reply, as_json=as_json)


@app.command("resume")
def resume_command(
    jobs: list[str] = typer.Argument(None, metavar="JOB...", help="These parked jobs."),
    every: bool = typer.Option(False, "--all", help="Every parked job."),
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Continue parked workers now (one account at a time), lifting a hold."""
    if bool(jobs) == every:
        client.fail(ErrorCode.USAGE, "name the parked jobs, or give --all")
    with client.exit_on_error():
        reply = client.request("resumeLimits", {"JOB": list(jobs or []), "all": every})
    _print(reply, as_json=as_json)


@app.command("hold")
def hold_command(
    jobs: list[str] = typer.Argument(..., metavar="JOB...", help="These parked jobs."),
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Keep parked workers parked past their reset, until `mytty limits resume`."""
    with client.exit_on_error():
        reply = client.request("holdLimits", {"JOB": list(jobs)})
    _print(reply, as_json=as_json)
