"""``mytty explain PANE|JOB``: why mytty shows what it shows, for humans (``--json`` for scripts).

The controller builds the explanation (``explain``, :mod:`mytty.control.explain`); this asks
for it and :mod:`mytty.cli.explain.render` prints it in a few short blocks that fit 80
columns. Besides a pane id, a job id or a unique prefix of either,
``PANE`` may be tmux's own name for a pane as ``mytty ls`` shows it (``%3``, ``work:1.0``),
which the controller resolves as it does for every command that takes a pane
(:mod:`mytty.tmux.pane_names`).
"""

from __future__ import annotations

import json

import typer

from mytty.cli import client


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
        reply = client.request("explain", {"target": target})
    if as_json:
        typer.echo(json.dumps(reply, ensure_ascii=False, sort_keys=True))
        return
    from rich.text import Text

    from mytty.cli.explain.render import WIDTH, lines

    console = client.console()
    for text, style in lines(reply, min(WIDTH, console.width or WIDTH)):
        console.print(Text(text, style=style), soft_wrap=True)
