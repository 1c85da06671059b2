"""``mytty explain PANE|JOB``: why mytty shows what it shows, for humans (``--json`` for scripts).

The controller builds the explanation (``explain``, :mod:`mytty.control.explain`); this asks
for it and :mod:`mytty.cli.explain.render` prints it in a few short blocks that fit 80
columns. Besides a pane id, a job id or a unique prefix of either,
``PANE`` may be tmux's own name for a pane as ``mytty ls`` shows it (``%3``, ``work:1.0``),
looked up in the ``@mytty_surface`` options the controller publishes.
"""

from __future__ import annotations

import json

import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode


def command(
    target: str = typer.Argument(
        ...,
        metavar="PANE|JOB",
        help="A pane or job id (or a unique prefix), or a pane as `mytty ls` names it (%3).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Why a pane or job shows its state: the evidence, what comes next, what looks wrong."""
    with client.exit_on_error():
        reply = client.request("explain", {"target": _surface_of(target)})
    if as_json:
        typer.echo(json.dumps(reply, ensure_ascii=False, sort_keys=True))
        return
    from rich.text import Text

    from mytty.cli.explain.render import WIDTH, lines

    console = client.console()
    for text, style in lines(reply, min(WIDTH, console.width or WIDTH)):
        console.print(Text(text, style=style), soft_wrap=True)


def _surface_of(target: str) -> str:
    """``target``, or the surface id of the tmux pane it names (``%3``, ``session:1.0``)."""
    if not target.startswith("%") and ":" not in target:
        return target
    from mytty.cli.ls import entries
    from mytty.cli.tmux_cmd import server_socket
    from mytty.tmux.bootstrap import tmux_binary
    from mytty.tmux.user_formats import TmuxCli, TmuxCliError, published_panes

    try:
        panes = entries(published_panes(TmuxCli(server_socket(None), tmux_binary())))
    except TmuxCliError as exc:
        client.fail(ErrorCode.TMUX_UNAVAILABLE, str(exc))
    for pane in panes:
        if target in (pane["pane"], pane["location"]) and pane["paneID"]:
            return str(pane["paneID"])
    client.fail(ErrorCode.PANE_NOT_FOUND, f"no mytty pane is called {target!r} in tmux")
