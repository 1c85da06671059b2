"""``mytty resume [--dry-run] [JOB…]``: bring lost workers back on their own conversations.

After the tmux server died or the machine rebooted, the controller's jobs whose panes went with
it are ``lost``. This starts the controller if needed (onto a new tmux server when the old one
is gone, as ``mytty up`` does) and asks it to resume them (``resumeJobs``, see
:mod:`mytty.daemon.jobs.resume`). ``--dry-run`` only prints the plan; it still starts a controller
that is not running (the plan is the controller's), but creates no pane and changes no job.

:func:`offer` is what ``mytty up`` and ``mytty start`` do after starting a controller, by
``[resume] mode`` in ``config.toml``: ``ask`` (the default) lists what could be resumed and,
on a terminal, asks; ``auto`` resumes; ``off`` does nothing.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import typer

from mytty.cli import client, controller
from mytty.core.errors import MyttyError

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
