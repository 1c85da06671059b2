"""``mytty worktree list|gc``: the worktrees ``agent spawn --worktree`` created, and their clean-up.

Works without a running controller: it reads ``$MYTTY_HOME/worktrees.jsonl`` and asks git and
``/proc`` directly (:mod:`mytty.daemon.worktree.gc`). A table for people, ``--json`` for scripts.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from mytty.cli import client

app = typer.Typer(
    help="List and clean up the git worktrees mytty created for workers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _record() -> Any:
    from mytty.daemon.worktree.record_file import WorktreeRecord

    return WorktreeRecord(client.home().worktree_record)


def _yes_no(value: object) -> str:
    return "?" if value is None else ("yes" if value else "no")


def _distance(row: dict[str, Any]) -> str:
    ahead, behind = row.get("ahead"), row.get("behind")
    return "?" if ahead is None or behind is None else f"+{ahead} -{behind}"


def _merged(row: dict[str, Any]) -> str:
    merged = row.get("merged")
    if merged is None:
        return "?"
    return "no" if merged == "none" else merged


def _table(title: str, rows: list[dict[str, Any]], last: tuple[str, str]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    console = client.console()
    columns = ("job", "branch", "path", "dirty", "ahead/behind", "merged", last[0])
    cells = [
        (
            ", ".join(job[:8] for job in row.get("jobs") or []) or "-",
            str(row.get("branch") or "-"),
            str(row["path"]),
            _yes_no(row.get("dirty")),
            _distance(row),
            _merged(row),
            str(row.get(last[1]) or ""),
        )
        for row in rows
    ]
    if not client.fits([columns, *cells], console.width, per_column=2):
        # Too narrow: one block per worktree, the path on a line of its own and never broken.
        console.print(Text(title, style="bold"))
        for job, branch, path, dirty, distance, merged, note in cells:
            console.print(
                Text(f"{branch}  (job {job})  dirty {dirty}, {distance}, merged {merged}")
            )
            console.print(Text(f"  {path}"), soft_wrap=True)
            if note:
                console.print(Text(f"  {note}"), soft_wrap=True)
        return
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for column in columns:
        table.add_column(column, no_wrap=True)
    for row_cells in cells:
        table.add_row(*(Text(cell) for cell in row_cells))
    console.print(table)


def _gc_note(row: dict[str, Any], dry_run: bool) -> str:
    if row["removed"]:
        return f"removed ({row['reason']}); tip kept as {row['archiveRef']}"
    if dry_run and row["removable"]:
        return f"would remove ({row['reason']})"
    return f"kept: {row['detail']}"


@app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Every worktree mytty created: job, branch, path, dirty?, ahead/behind, merged?."""
    from mytty.daemon.worktree.gc import list_worktrees

    rows = [status.to_json() for status in list_worktrees(_record())]
    if as_json:
        typer.echo(json.dumps({"worktrees": rows}, ensure_ascii=False))
        return
    if not rows:
        typer.echo("mytty has created no worktrees (or removed them all).")
        return
    for row in rows:
        row["gc"] = ("removable: " if row["removable"] else "kept: ") + str(row["detail"])
    _table("mytty worktrees", rows, ("gc", "gc"))


@app.command("gc")
def gc_command(
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Only say what would be removed; change nothing."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Remove the worktrees mytty created that hold no unsaved work (tips archived first)."""
    from mytty.daemon.worktree.gc import gc

    rows = [outcome.to_json() for outcome in gc(_record(), dry_run=dry_run)]
    if as_json:
        typer.echo(json.dumps({"dryRun": dry_run, "worktrees": rows}, ensure_ascii=False))
        return
    if not rows:
        typer.echo("mytty has created no worktrees (or removed them all).")
        return
    for row in rows:
        row["outcome"] = _gc_note(row, dry_run)
    title = "mytty worktree gc --dry-run" if dry_run else "mytty worktree gc"
    _table(title, rows, ("outcome", "outcome"))
