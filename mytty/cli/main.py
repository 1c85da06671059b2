"""``mytty``: the human's command. This module only assembles the typer app and runs it; each
command lives in the module of its noun (the controller's lifecycle in
:mod:`mytty.cli.lifecycle`, what they share in :mod:`mytty.cli.client`).

typer answers a mistyped command or option with a rich box and exit status 2; mytty promises
one line, ``mytty: usage: <what was wrong> (see 'mytty CMD --help')``, and exit status 1, like
every other failure (:mod:`mytty.cli.client`), so :func:`run` handles the parser's errors
itself. typer's suggestion ("Did you mean 'ls'?") is kept: it is part of the message. typer's
help also prints a type for every option, ``<bool>`` for a flag and ``<str>`` for a value; a
flag shows nothing and a value its metavar instead (:func:`metavar_of`, the rule the reference
page uses too)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer

# typer vendors click: its parser raises these.
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperOption
from typer.exceptions import Abort

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


def metavar_of(param: Any) -> str:
    """What a value stands for: the declared metavar, else the last word of the parameter's
    name in capitals (``tmux_socket`` → ``SOCKET``)."""
    return str(param.metavar or param.name.rsplit("_", 1)[-1].upper())


def _display_type_rich(self: TyperOption, ctx: Any) -> str | None:
    if self.is_flag or self.count:
        return None
    return metavar_of(self)


def plain_metavars() -> None:
    """Make typer's help show ``--key KEY`` and ``--json`` instead of ``<str>`` and ``<bool>``."""
    TyperOption.display_type_rich = _display_type_rich  # type: ignore[method-assign]


def usage_line(exc: UsageError) -> str:
    """The one line a usage error prints (without the ``mytty: `` prefix)."""
    message = " ".join(exc.format_message().split())
    ctx = exc.ctx
    hint = ""
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        hint = f" (see '{ctx.command_path} {ctx.help_option_names[0]}')"
    return f"usage: {message}{hint}"


def run(typer_app: typer.Typer, args: list[str] | None = None) -> NoReturn:
    """Run ``typer_app`` as the ``mytty`` command and exit with its status."""
    from typer.main import get_command

    plain_metavars()
    command = get_command(typer_app)
    try:
        result = command.main(args=args, prog_name="mytty", standalone_mode=False)
    except NoArgsIsHelpError:
        # typer printed the help while building the error; no command is still a usage error.
        sys.exit(1)
    except UsageError as exc:
        typer.echo(f"mytty: {usage_line(exc)}", err=True)
        sys.exit(1)
    except ClickException as exc:
        typer.echo(f"mytty: usage: {exc.format_message()}", err=True)
        sys.exit(1)
    except Abort:
        typer.echo("mytty: aborted", err=True)
        sys.exit(1)
    # Without standalone mode typer hands back a typer.Exit's status (or the command's value).
    sys.exit(result if isinstance(result, int) else 0)


def main() -> None:
    run(app)


if __name__ == "__main__":
    main()
