"""``mytty resume [--dry-run] [JOB…]``: bring lost workers back on their own conversations.

After the tmux server died or the machine rebooted, the controller's jobs whose panes went with
it are ``lost``. This starts the controller if needed (onto a new tmux server when the old one
is gone, as ``mytty up`` does) and asks it to resume them (``resumeJobs``, see
:mod:`mytty.daemon.jobs.resume`). ``--dry-run`` only prints the plan; it still starts a controller
that is not running (the plan is the controller's), but creates no pane and changes no job.

:func:`offer` is what ``mytty up`` and ``mytty start`` do after starting a controller, by
``[resume] mode`` in ``config.toml``: ``ask`` (the default) lists what could be resumed and,
on a terminal, asks; ``auto`` resumes; ``off`` does nothing.

``mytty limits [--json]`` (:data:`limits_app`) is the other way a worker goes on with its own
conversation: it lists each account with workers parked at their usage limit (the reset its
provider gave, mytty's next continuation) and each parked job; ``mytty limits resume
JOB…|--all`` continues them now, ``mytty limits hold JOB…`` keeps them parked until ``resume``.
The requests are ``listLimits``, ``resumeLimits`` and ``holdLimits``
(docs/reference/mytty-ctl.md#usage-limits); ``--json`` prints the controller's reply:
``accounts`` and ``jobs`` (each with ``jobID``, ``provider``, ``parkedUntil``, ``resumesAt``,
``limit``, ``account``, …).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import typer

from mytty.cli import client, controller
from mytty.core.errors import ErrorCode, MyttyError

#: Creating the panes and starting the agents takes a moment per job.
RESUME_TIMEOUT_S = 120.0


def _resume(job_ids: Sequence[str], dry_run: bool) -> dict[str, Any]:
    values = {"JOB": list(job_ids), "dryRun": dry_run}
    return client.request("resumeJobs", values, timeout=RESUME_TIMEOUT_S)


def describe(entry: Mapping[str, Any], *, dry_run: bool) -> str:
    """One line per job: what was (or would be) done, and how."""
    job = str(entry["jobID"]["rawValue"])[:8]
    label = f" ({entry['label']})" if entry.get("label") else ""
    head = f"{job}{label} {entry['provider']}"
    if entry.get("skipped"):
        return f"skipped  {head}: {entry['skipped']}"
    argv = entry.get("argv") or []
    # The prompt is long and the same for every job: the command line up to it says enough.
    shown = " ".join(argv[: argv.index("--")] if "--" in argv else argv)
    verb = "would resume" if dry_run else "resumed "
    return f"{verb} {head} in {entry['cwd']}: {shown}"


def _print(reply: Mapping[str, Any], *, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(reply, ensure_ascii=False, sort_keys=True))
        return
    entries = reply.get("jobs") or []
    if not entries:
        typer.echo("nothing to resume: no lost worker whose conversation mytty knows")
        return
    for entry in entries:
        typer.echo(describe(entry, dry_run=bool(reply.get("dryRun"))))


def command(
    jobs: list[str] = typer.Argument(
        None, metavar="JOB...", help="Only these jobs (default: every lost job)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; change nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
    tmux_socket: str | None = typer.Option(
        None, "--tmux-socket", help="tmux server socket (like tmux -S)."
    ),
) -> None:
    """Restart workers lost with their tmux server, each on its own conversation."""
    started = controller.start(tmux_socket)
    if not dry_run:
        # A dead tmux server is replaced here (as `mytty up` does); a dry run touches no tmux.
        controller.ensure_session(tmux_socket, started)
    with client.exit_on_error():
        reply = _resume(jobs or [], dry_run)
    _print(reply, as_json=as_json)


def offer(started: bool) -> None:
    """After ``up``/``start`` started a controller: resume lost workers as configured."""
    if not started:
        return  # the same controller as before: its lost jobs were offered when it started
    from mytty.daemon.config.load import read_settings

    settings, _warnings = read_settings(client.home().root)  # the controller logs the warnings
    mode = settings.resume.mode
    if mode == "off":
        return
    try:
        plan = _resume([], dry_run=mode != "auto")
    except MyttyError as exc:
        client.say(f"could not check for workers to resume: {exc.code.value}: {exc.message}")
        return
    ready = [e for e in plan.get("jobs") or [] if not e.get("skipped")]
    if mode == "auto":
        for entry in plan.get("jobs") or []:
            client.say(describe(entry, dry_run=False))
        return
    if not ready:
        return
    client.say(f"{len(ready)} worker(s) were lost with their tmux pane and can be resumed:")
    for entry in ready:
        client.say("  " + describe(entry, dry_run=True))
    if not sys.stdin.isatty():
        client.say("run `mytty resume` to resume them ([resume] mode in config.toml)")
        return
    if typer.confirm("mytty: resume them now?", default=False, err=True):
        done = _resume([str(e["jobID"]["rawValue"]) for e in ready], dry_run=False)
        for entry in done.get("jobs") or []:
            client.say(describe(entry, dry_run=False))


# -- mytty limits ---------------------------------------------------------------------------------

limits_app = typer.Typer(help="Workers parked at their usage limit: list, resume now, hold.")


def _when(stamp: object) -> str:
    return str(stamp).replace("T", " ").replace("Z", " UTC") if stamp else "—"


def _print_limits(reply: Mapping[str, Any], *, as_json: bool) -> None:
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


@limits_app.callback(invoke_without_command=True)
def list_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Each account's parked workers, its reset and mytty's next continuation."""
    if ctx.invoked_subcommand is not None:
        return
    with client.exit_on_error():
        reply = client.request("listLimits")
    _print_limits(reply, as_json=as_json)


@limits_app.command("resume")
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
    _print_limits(reply, as_json=as_json)


@limits_app.command("hold")
def hold_command(
    jobs: list[str] = typer.Argument(..., metavar="JOB...", help="These parked jobs."),
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Keep parked workers parked past their reset, until `mytty limits resume`."""
    with client.exit_on_error():
        reply = client.request("holdLimits", {"JOB": list(jobs)})
    _print_limits(reply, as_json=as_json)
