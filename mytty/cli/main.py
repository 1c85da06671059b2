"""``mytty``: the human's command. This module only assembles the typer app; each command
lives in the module of its noun (the controller's lifecycle in :mod:`mytty.cli.lifecycle`,
what they share in :mod:`mytty.cli.client`)."""

from __future__ import annotations

import typer

from mytty.cli import approvals, attention, doctor, explain, lifecycle, ls, resume
from mytty.cli.hosts.command import app as hosts_app
from mytty.cli.integrations import app as integrations_app
from mytty.cli.notify import app as notify_app
from mytty.cli.resume import limits_app
from mytty.cli.shell_integration import app as shell_integration_app
from mytty.cli.tmux_cmd import app as tmux_app
from mytty.cli.worktree import app as worktree_app
from mytty.web import command as web_command

app = typer.Typer(
    help="mytty: a tmux-backed orchestration controller for AI coding agents.",
    no_args_is_help=True,
    # A failure is one `mytty: <code>: <explanation>` line, never a rich traceback.
    pretty_exceptions_enable=False,
)
app.add_typer(
    integrations_app, name="integrations", help="Install or remove agent hook integrations."
)
app.add_typer(shell_integration_app, name="shell-integration")
app.add_typer(worktree_app, name="worktree")
app.add_typer(tmux_app, name="tmux")
app.add_typer(notify_app, name="notify")
app.add_typer(hosts_app, name="hosts")
app.add_typer(approvals.app, name="approvals")
app.add_typer(limits_app, name="limits")
# The order of `mytty --help`.
app.command("doctor")(doctor.doctor_command)
app.command("ls")(ls.command)
app.command("resume")(resume.command)
app.command("status", help="The same as `mytty ls`.")(ls.command)
app.command("serve")(lifecycle.serve_command)
app.command("start")(lifecycle.start_command)
app.command("stop")(lifecycle.stop_command)
app.command("up")(lifecycle.up_command)
app.command("attention")(attention.command)
app.command("approve")(approvals.approve_command)
app.command("deny")(approvals.deny_command)
app.command("explain")(explain.command)
app.command("web")(web_command.command)


def _print_version(value: bool) -> None:
    if value:
        from mytty import __version__

        typer.echo(f"mytty {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print mytty's version and exit.",
    ),
) -> None:
    pass


def main() -> None:
    app()


if __name__ == "__main__":
    main()
