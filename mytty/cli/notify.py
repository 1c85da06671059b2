"""``mytty notify test``: send one notification through every enabled channel and say how each went.

The controller sends it (the tmux channels need its connection), so this is a ``notifyTest``
request; the channels and the command come from ``[notify]`` in ``$MYTTY_HOME/config.toml``
as the controller read them at its start. Exit status 1 when any channel failed.
"""

from __future__ import annotations

import json

import typer

from mytty.cli import client

app = typer.Typer(help="Notifications: try the channels of \\[notify] in config.toml.")

_STYLES = {"sent": "green", "skipped": "yellow", "failed": "bold red"}
#: The controller may take up to [notify] timeout (at most 60 s) for the command channel.
NOTIFY_TIMEOUT_S = 75.0


@app.command("test")
def test_command(
    as_json: bool = typer.Option(False, "--json", help="Print the controller's reply as JSON."),
) -> None:
    """Send a test notification through every enabled channel and report each result."""
    with client.exit_on_error():
        reply = client.request("notifyTest", timeout=NOTIFY_TIMEOUT_S)
    channels = reply.get("channels", [])
    failed = any(c.get("status") == "failed" for c in channels)
    if as_json:
        typer.echo(json.dumps(reply, ensure_ascii=False))
    else:
        _print(channels)
    if failed:
        raise typer.Exit(1)


def _print(channels: list[dict[str, str]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    console = client.console()
    if not channels:
        console.print("No channel is enabled: set [notify] channels in config.toml.")
        return
    table = Table(title="mytty notify test", show_lines=False)
    for column in ("channel", "result", "detail"):
        table.add_column(column)
    for c in channels:
        status = c.get("status", "")
        style = _STYLES.get(status, "")
        table.add_row(
            escape(c.get("channel", "")), f"[{style}]{status}[/]", escape(c.get("detail", ""))
        )
    console.print(table)
