"""The ``mytty`` command reference (docs/reference/mytty.md), made from the typer app itself.

The same idea as :mod:`mytty.control.manual` for ``mytty-ctl``: each command's synopsis, help
and options come from its declaration (the typer command and its ``typer.Option`` /
``typer.Argument`` texts), so the page cannot drift from ``mytty --help``. The text between the
page's ``<!-- begin mytty commands -->`` and ``<!-- end mytty commands -->`` markers is
rebuilt by ``scripts/gen-docs``; the prose around it is hand-written and kept.
``tests/cli/test_mytty_reference.py`` fails when the committed page is stale.
"""

from __future__ import annotations

import inspect
from typing import Any

BEGIN = "<!-- begin mytty commands: generated from the typer app by scripts/gen-docs -->"
END = "<!-- end mytty commands -->"


#: The order of the top-level commands on the page (others follow in the app's order).
ORDER = (
    "up",
    "start",
    "stop",
    "serve",
    "attention",
    "approvals",
    "approve",
    "deny",
    "web",
    "ls",
    "status",
    "doctor",
    "notify",
    "tmux",
    "integrations",
    "shell-integration",
    "worktree",
)


def _ordered(names: list[str]) -> list[str]:
    first = [n for n in ORDER if n in names]
    return first + [n for n in names if n not in first]


def _commands(group: Any, path: list[str]) -> list[tuple[list[str], Any, str | None]]:
    """(words, command, help of its group) for every visible command, depth first."""
    out: list[tuple[list[str], Any, str | None]] = []
    names = _ordered(list(group.commands)) if not path else list(group.commands)
    for name in names:
        command = group.commands[name]
        if command.hidden:
            continue
        if hasattr(command, "commands"):
            if getattr(command, "invoke_without_command", False):
                out.append(([*path, name], command, None))  # the group runs by itself too
            for words, sub, _ in _commands(command, [*path, name]):
                out.append((words, sub, command.help))
        else:
            out.append(([*path, name], command, None))
    return out


def _metavar(param: Any) -> str:
    from mytty.cli.main import metavar_of

    return metavar_of(param)


def _synopsis(words: list[str], command: Any) -> str:
    parts = ["mytty", *words]
    if hasattr(command, "commands"):  # a group that runs by itself: its subcommands too
        parts.append(f"[{'|'.join(command.commands)} …]")
    for p in command.params:
        if p.hidden if hasattr(p, "hidden") else False:
            continue
        if p.param_type_name == "argument":
            word = _metavar(p)
            parts.append(word if p.required else f"[{word}]")
        elif p.is_flag:
            parts.append(f"[{p.opts[0]}]")
        else:
            word = f"{p.opts[0]} {_metavar(p)}"
            parts.append(f"[{word}]…" if p.multiple else f"[{word}]")
    return " ".join(parts)


def _help(text: str | None) -> str:
    return inspect.cleandoc(text or "").strip()


def _rows(command: Any) -> list[tuple[str, str]]:
    rows = []
    for p in command.params:
        if getattr(p, "hidden", False):
            continue
        if p.param_type_name == "argument":
            left = _metavar(p)
        else:
            names = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
            left = names if p.is_flag else f"{names} `{_metavar(p)}`"
            if p.multiple:
                left += " (repeatable)"
        text = _help(getattr(p, "help", None)).replace("|", "\\|").replace("\n", " ")
        left = left if left.startswith("`") else f"`{left}`"
        rows.append((left.replace("|", "\\|"), text))  # a metavar like PANE|JOB splits no cell
    return rows


def reference() -> str:
    """Every ``mytty`` command's section, in the app's order."""
    from typer.main import get_command

    from mytty.cli.main import app

    root = get_command(app)
    sections: list[str] = []
    for words, command, _group_help in _commands(root, []):
        lines = [f"### `mytty {' '.join(words)}`", "", "```sh", _synopsis(words, command), "```"]
        text = _help(command.help)
        if text:
            lines += ["", text]
        rows = _rows(command)
        if rows:
            lines += ["", "| argument or option | meaning |", "|---|---|"]
            lines += [f"| {left} | {right} |" for left, right in rows]
        sections.append("\n".join(lines))
    return "\n\n".join(sections) + "\n"


def update_page(page: str) -> str:
    """``page`` with the generated part rebuilt (ValueError when its markers are missing)."""
    start, stop = page.find(BEGIN), page.find(END)
    if start < 0 or stop < start:
        raise ValueError(f"the page has no {BEGIN!r} … {END!r} markers")
    return page[: start + len(BEGIN)] + "\n" + reference() + page[stop:]
