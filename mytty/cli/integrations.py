"""``mytty integrations …``: the human's switch for provider hook integrations.

The human is at their own terminal, so nothing here asks for confirmation: running the command
is the consent. Each mutating command prints what it changed and the resulting status; any
failure is one line on stderr (``mytty: <code>: <message>``) and exit status 1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from mytty.cli import client, controller
from mytty.core.errors import ErrorCode
from mytty.core.events import AgentProvider
from mytty.integrations import api

app = typer.Typer(
    name="integrations",
    help="Install, repair or remove the hooks that let mytty follow each coding agent.",
    no_args_is_help=True,
    add_completion=False,
)

_PROVIDERS = ", ".join(p.value for p in AgentProvider)
T = TypeVar("T")

if TYPE_CHECKING:
    from rich.console import Console, RenderableType


def _run(action: Callable[[], T]) -> T:
    with client.exit_on_error(os_errors=True):  # the file edits' OSErrors are internal-error
        return action()


def _line(console: Console, what: RenderableType) -> None:
    # Never wrapped: a path stays one copyable line however narrow the terminal.
    console.print(what, markup=False, soft_wrap=True)


def _print_status(
    console: Console, status: api.IntegrationStatus, verified: str | None = None
) -> None:
    line = f"{status.provider.value}: {status.status}"
    if status.error:
        line += f" — {status.error}"
    if status.upgrade:
        line += f" — {status.upgrade}; run `mytty integrations repair {status.provider.value}`"
    if verified:
        line += f" (hooks last verified with {verified})"
    _line(console, line)


def _report(changed: list[str], warnings: list[str], statuses: list[api.IntegrationStatus]) -> None:
    console = client.console()
    if changed:
        _line(console, "Changed:")
        for path in changed:
            _line(console, f"  {path}")
    else:
        _line(console, "Nothing to change.")
    for warning in warnings:
        _line(console, f"Note: {warning}")
    for status in statuses:
        _print_status(console, status)


def _provider(name: str) -> AgentProvider:
    """The provider ``name`` names; the human command also takes ``claude`` for claude-code
    (agent spawn's word for it)."""
    from mytty.core.vocab import PROVIDER_ALIASES, PROVIDERS

    if name not in PROVIDERS and PROVIDER_ALIASES.get(name) in PROVIDERS:
        name = PROVIDER_ALIASES[name]
    return api.parse_provider(name)


@app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print the integrationStatuses object."),
) -> None:
    """Show each provider's integration status (read from its files every time)."""
    wire = _run(api.integrations_wire)
    if as_json:
        typer.echo(json.dumps(wire, ensure_ascii=False))
        return
    console = client.console()
    verified = _last_verified()
    for status in _run(api.list_statuses):
        _print_status(console, status, verified.get(status.provider.value))


@app.command("enable")
def enable_command(provider: str = typer.Argument(..., help=f"One of: {_PROVIDERS}.")) -> None:
    """Install the provider's hooks (and, for Claude Code and Codex, the pane-team pointer)."""
    warnings: list[str] = []
    chosen = _run(lambda: _provider(provider))
    changed = _run(lambda: api.enable(chosen, warnings=warnings))
    _report(changed, warnings, [_run(lambda: api.status_of(chosen))])


@app.command("disable")
def disable_command(provider: str = typer.Argument(..., help=f"One of: {_PROVIDERS}.")) -> None:
    """Remove exactly what enable added, leaving everything else in those files as it was."""
    chosen = _run(lambda: _provider(provider))
    changed = _run(lambda: api.disable(chosen))
    _report(changed, [], [_run(lambda: api.status_of(chosen))])


@app.command("repair")
def repair_command(
    provider: str | None = typer.Argument(
        None,
        help=f"One of: {_PROVIDERS}. Omit to repair every integration that needs it "
        "(needs-repair, or installed by an older mytty).",
    ),
) -> None:
    """Reinstall one provider's integration, or every one that needs repair or is from an older mytty."""
    warnings: list[str] = []
    chosen = _run(lambda: _provider(provider)) if provider is not None else None
    changed = _run(lambda: api.repair(chosen, warnings=warnings))
    statuses = (
        [_run(lambda: api.status_of(chosen))] if chosen is not None else _run(api.list_statuses)
    )
    _report(changed, warnings, statuses)


def _last_verified() -> dict[str, str]:
    from mytty.core.paths import mytty_home
    from mytty.verify.runner import last_verified

    return last_verified(Path(mytty_home(os.environ)))


_OUTCOME_STYLE = {"hook": "green", "native": "yellow", "missing": "red", "not-driven": "dim"}
_OUTCOME_TEXT = {
    "hook": "delivered by a hook",
    "native": "covered by native estimation",
    "missing": "MISSING",
    "not-driven": "not driven",
}


@app.command("verify")
def verify_command(
    provider: str | None = typer.Argument(
        None, help="claude-code or codex. Omit to verify every one installed on PATH."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object per provider."),
) -> None:
    """Run the installed agent offline against a loopback mock and show which transitions reach mytty.

    Nothing leaves 127.0.0.1 and no tokens are spent: the agent runs in a throw-away HOME with
    mytty's hooks installed, a private tmux server and controller. The only file written outside
    that directory is $MYTTY_HOME/verified.json (the last verified version per provider).
    """
    from datetime import UTC, datetime
    from shutil import which

    from rich.table import Table

    from mytty.core.paths import mytty_home
    from mytty.verify import runner

    if provider is not None:
        chosen = [_run(lambda: _provider(provider))]
    else:
        chosen = [p for p, (name, _) in runner.BINARIES.items() if which(name)]
        if not chosen:
            client.fail(ErrorCode.INVALID_REQUEST, "neither claude nor codex is on PATH")
    ctl_bin = _run(controller.ctl_bin)
    mytty_bin = str(Path(ctl_bin).with_name("mytty"))
    console = client.console()
    failed = False
    for one in chosen:
        if not as_json:
            _line(console, f"Verifying {one.value} offline (about a minute)…")
        try:
            report = runner.verify(one, mytty_bin=mytty_bin, ctl_bin=ctl_bin)
        except runner.VerifyError as exc:
            client.fail(ErrorCode.INTERNAL_ERROR, f"verify {one.value}: {exc}")
        at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        runner.record(Path(mytty_home(os.environ)), report, at)
        failed = failed or not report.ok
        if as_json:
            typer.echo(json.dumps(report.to_json(), ensure_ascii=False))
            continue
        table = Table(title=f"{one.value} — {report.version} ({report.binary})")
        table.add_column("transition")
        table.add_column("how it reached mytty")
        table.add_column("detail")
        for row in report.rows:
            style = _OUTCOME_STYLE[row.outcome]
            table.add_row(row.transition, f"[{style}]{_OUTCOME_TEXT[row.outcome]}[/]", row.detail)
        console.print(table, soft_wrap=True)
        for problem in report.problems:
            _line(console, f"Problem: {problem}: {', '.join(report.leaks)}")
    if failed:
        raise typer.Exit(1)
