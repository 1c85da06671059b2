"""``mytty tmux install|uninstall``: mytty's segments and popup key in the user's tmux.

Which tmux server: ``--tmux-socket``, else the running controller's, else the one the
controller would bind to (``$MYTTY_TMUX_SOCKET``, ``$TMUX``), else the one it last ran on,
else the default server. What is
installed: ``[tmux]`` in config.toml (``pane_border_segment``, ``status_segment``,
``popup_key``), defaults when the file has none. See docs/reference/tmux-options.md.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer

from mytty.cli import client, controller
from mytty.core.errors import ErrorCode

app = typer.Typer(
    help="Add mytty's status segments and popup key to your tmux, or take them out again.",
    no_args_is_help=True,
)

_SOCKET_HELP = "tmux server socket (like tmux -S); default: the running controller's server."


def server_socket(explicit: str | None) -> str:
    """The tmux server a `mytty` command acts on (see the module docstring)."""
    if explicit:
        return explicit
    recorded = controller.recorded_socket(client.home())
    if recorded and client.running():
        return str(recorded)
    if recorded and not (os.environ.get("MYTTY_TMUX_SOCKET") or os.environ.get("TMUX")):
        return str(recorded)  # the server the controller last ran on
    from mytty.tmux.bootstrap import resolve_socket

    return str(resolve_socket(None, os.environ))


def tmux_settings() -> Any:
    """``[tmux]`` of config.toml (defaults when there is no file or no such section)."""
    from mytty.daemon.config.load import read_settings

    settings, _warnings = read_settings(client.home().root)
    return settings.tmux


def _cli(tmux_socket: str | None) -> Any:
    from mytty.tmux.bootstrap import server_alive, tmux_binary
    from mytty.tmux.user_formats import TmuxCli

    socket_path = server_socket(tmux_socket)
    if not server_alive(socket_path):
        client.fail(ErrorCode.TMUX_UNAVAILABLE, f"no tmux server answers at {socket_path}")
    return TmuxCli(socket_path, tmux_binary())


def _report(changes: list[Any]) -> None:
    for change in changes:
        mark = "done" if change.done else "skipped"
        note = f": {change.note}" if change.note else ""
        typer.echo(f"  {change.what}: {mark}{note}")


@app.command()
def install(
    tmux_socket: str | None = typer.Option(None, "--tmux-socket", help=_SOCKET_HELP),
    key: str | None = typer.Option(
        None, "--key", help="Prefix-table key for the popup (default: popup_key in config.toml)."
    ),
    borders: bool = typer.Option(
        False, "--borders", help="Also turn on border text (pane-border-status top) if it is off."
    ),
) -> None:
    """Append mytty's segments to your pane-border and status formats and bind the popup key.

    Idempotent; `mytty tmux uninstall` restores every option exactly. The running controller
    installs the same again on a new tmux server (after `tmux kill-server`, a reboot).
    """
    from mytty.tmux.user_formats import TmuxCliError, install

    cli = _cli(tmux_socket)
    settings = tmux_settings()
    chosen = {
        "border": settings.pane_border_segment,
        "status": settings.status_segment,
        "key": key if key is not None else settings.popup_key,
        "borders": borders,
    }
    try:
        changes = install(cli, **chosen, python=sys.executable, home=str(client.home().root))
    except TmuxCliError as exc:
        client.fail(ErrorCode.INVALID_REQUEST, f"tmux refused: {exc}")
    _remember(chosen)
    typer.echo(f"mytty tmux install ({cli.argv[-1]}):")
    _report(changes)


def _remember(chosen: dict[str, Any] | None) -> None:
    """Keep (or, with None, forget) what was installed: the controller re-applies it to a new
    tmux server (mytty.daemon.tmux_reinstall)."""
    import json

    path = client.home().tmux_install_record
    try:
        if chosen is None:
            path.unlink(missing_ok=True)
        else:
            client.home().ensure()
            path.write_text(json.dumps(chosen) + "\n")
    except OSError as exc:
        client.say(
            f"could not record the install in {path} ({exc.strerror or exc}): a new tmux "
            "server will not get it by itself"
        )


@app.command()
def uninstall(
    tmux_socket: str | None = typer.Option(None, "--tmux-socket", help=_SOCKET_HELP),
) -> None:
    """Take out what `mytty tmux install` added, restoring your options byte for byte."""
    from mytty.tmux.user_formats import TmuxCliError, uninstall

    cli = _cli(tmux_socket)
    try:
        changes = uninstall(cli)
    except TmuxCliError as exc:
        client.fail(ErrorCode.INVALID_REQUEST, f"tmux refused: {exc}")
    _remember(None)
    typer.echo(f"mytty tmux uninstall ({cli.argv[-1]}):")
    _report(changes)
