"""``mytty up|start|stop|serve``: the commands that run the controller (over
:mod:`mytty.cli.controller`) and attach a human to the ``mytty`` session."""

from __future__ import annotations

import os
import sys

import typer

from mytty.cli import client, controller
from mytty.cli.resume import offer as offer_resume

_SOCKET_HELP = "tmux server socket (like tmux -S)."


def serve_command(
    tmux_socket: str | None = typer.Option(None, "--tmux-socket", help=_SOCKET_HELP),
    ready_fd: int | None = typer.Option(None, "--ready-fd", hidden=True),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging."),
) -> None:
    """Run the controller in the foreground until SIGTERM or Ctrl-C."""
    controller.serve(tmux_socket, ready_fd, verbose)


def start_command(
    tmux_socket: str | None = typer.Option(None, "--tmux-socket", help=_SOCKET_HELP),
) -> None:
    """Start the controller in the background (does nothing when one is running)."""
    home = client.home()
    if controller.start(tmux_socket):
        path, why = controller.socket_choice(tmux_socket)
        typer.echo(
            f"mytty started (home {home.root}, log {home.log_file}, tmux server {path}: {why})"
        )
        offer_resume(True)  # [resume] mode in config.toml
    else:
        on = controller.recorded_socket(home)
        typer.echo(f"mytty is already running (home {home.root}, tmux server {on or '?'})")


def stop_command() -> None:
    """Stop the background controller of this MYTTY_HOME."""
    typer.echo("mytty stopped" if controller.stop() else "mytty is not running")


def up_command(
    tmux_socket: str | None = typer.Option(None, "--tmux-socket", help=_SOCKET_HELP),
    no_attach: bool = typer.Option(
        False, "--no-attach", help="Prepare everything but don't attach."
    ),
) -> None:
    """Start mytty if needed, make sure the `mytty` session exists, and attach to it."""
    started = controller.start(tmux_socket, announce=True)
    session = controller.ensure_session(tmux_socket, started)
    offer_resume(started or session.restarted)  # [resume] mode in config.toml
    name, sock = session.name, session.tmux_socket
    from mytty.tmux.attach import attach_argv, attach_hint

    if no_attach:
        typer.echo(f"mytty is ready: {attach_hint(sock, name)}")
        return
    current = os.environ.get("TMUX", "").split(",")[0]
    if current and os.path.realpath(current) == os.path.realpath(sock):
        client.say(f"switching to tmux session {name}")
        argv = attach_argv(sock, name, inside_same_server=True)
        os.execvp(argv[0], argv)
    if current:
        # Inside another tmux server: attaching would nest; say how instead.
        typer.echo(f"mytty runs on another tmux server; detach and run: {attach_hint(sock, name)}")
        return
    if not sys.stdin.isatty():
        typer.echo(f"mytty is ready: {attach_hint(sock, name)}")
        return
    client.say(f"attaching to tmux session {name} (detach with your tmux prefix, then d: C-b d)")
    argv = attach_argv(sock, name, inside_same_server=False)
    os.execvp(argv[0], argv)
