"""Only mytty/tmux speaks tmux: no other module holds a tmux command line, format or target.

The check reads every string literal (docstrings excepted: they may explain tmux) of every
module outside mytty/tmux and looks for what a tmux command line is made of: a command name
where a command starts (the start of the string, after ``tmux``, ``;`` or ``\\;``), a
``#{format}``, or an exact-match session target (``=name``) next to ``-t``.
"""

from __future__ import annotations

import ast
import gc
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "mytty"

#: tmux 3.3a command names (``tmux list-commands``) and their unambiguous aliases.
COMMANDS = [
    "attach-session",
    "bind-key",
    "break-pane",
    "capture-pane",
    "choose-buffer",
    "choose-client",
    "choose-tree",
    "clear-history",
    "clock-mode",
    "command-prompt",
    "confirm-before",
    "copy-mode",
    "customize-mode",
    "delete-buffer",
    "detach-client",
    "display-menu",
    "display-message",
    "display-panes",
    "display-popup",
    "find-window",
    "has-session",
    "if-shell",
    "join-pane",
    "kill-pane",
    "kill-server",
    "kill-session",
    "kill-window",
    "last-pane",
    "last-window",
    "link-window",
    "list-buffers",
    "list-clients",
    "list-commands",
    "list-keys",
    "list-panes",
    "list-sessions",
    "list-windows",
    "load-buffer",
    "lock-client",
    "lock-server",
    "lock-session",
    "move-pane",
    "move-window",
    "new-session",
    "new-window",
    "next-layout",
    "next-window",
    "paste-buffer",
    "pipe-pane",
    "previous-layout",
    "previous-window",
    "refresh-client",
    "rename-session",
    "rename-window",
    "resize-pane",
    "resize-window",
    "respawn-pane",
    "respawn-window",
    "rotate-window",
    "run-shell",
    "save-buffer",
    "select-layout",
    "select-pane",
    "select-window",
    "send-keys",
    "send-prefix",
    "server-access",
    "set-buffer",
    "set-environment",
    "set-hook",
    "set-option",
    "set-window-option",
    "show-buffer",
    "show-environment",
    "show-hooks",
    "show-messages",
    "show-options",
    "show-window-options",
    "source-file",
    "split-window",
    "start-server",
    "suspend-client",
    "swap-pane",
    "swap-window",
    "switch-client",
    "unbind-key",
    "unlink-window",
    "wait-for",
    "lsp",
    "lsc",
    "neww",
    "splitw",
    "setw",
    "showenv",
    "setenv",
    "killp",
    "killw",
    "selectp",
    "selectw",
    "respawnp",
    "capturep",
]
#: Aliases that are everyday words too (``send`` is a wire type, ``set`` fish syntax): only
#: counted right after the word ``tmux`` and its options.
WORD_ALIASES = ["attach", "new", "send", "set", "show", "display", "ls", "detach"]


def _alternatives(names: list[str]) -> str:
    return "|".join(sorted(map(re.escape, names), key=len, reverse=True))


_TMUX_WORD = r"\btmux\b(?:\s+-\S+(?:\s+(?!-)\S+)?)*\s+"
_PATTERNS = [
    # a command name where a command line starts: the string's start, after ``;``/``\;``
    re.compile(rf"(?:^|;\s*)({_alternatives(COMMANDS)})(?:\s|$)"),
    # a command name followed by a flag, anywhere (``exec {tmux} set-hook -gu ...``)
    re.compile(rf"(?:^|\s)({_alternatives(COMMANDS)})\s+-[A-Za-z]"),
    # any command or alias right after ``tmux [-S sock]`` (a hint a human should run)
    re.compile(rf"{_TMUX_WORD}({_alternatives(COMMANDS + WORD_ALIASES)})\b"),
    re.compile(r"#\{[a-z_@]"),  # a format
    re.compile(r"-t\s+="),  # an exact-match target
]


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Each string literal as written (an f-string's fields become ``{}``)."""
    docs = _docstring_nodes(tree)
    out: list[tuple[int, str]] = []
    inside_fstring: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = ""
            for part in node.values:
                inside_fstring.add(id(part))
                text += str(part.value) if isinstance(part, ast.Constant) else "{}"
            out.append((node.lineno, text))
    out.extend(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and id(node) not in inside_fstring
    )
    return out


#: Modules that read tmux command lines other programs wrote, and never send one: the worker
#: guard parses an agent's shell command to refuse ``tmux kill-server`` aimed at mytty's server.
READERS_OF_TMUX_SYNTAX = {"mytty/core/kill_guard.py"}


def _without_comment_lines(text: str) -> str:
    """A TOML/shell comment line inside a literal (config.toml's defaults) is prose for humans."""
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("# "))


def tmux_syntax(source: str) -> list[tuple[int, str]]:
    """The string literals of ``source`` that look like tmux command syntax."""
    # Finalizers of other tests' garbage (asyncio subprocess transports) running inside
    # ast.parse make CPython 3.11 fail with "AST constructor recursion depth mismatch": no
    # collection may run inside it. (A gc.collect() before each parse cost ~0.4 s per module
    # late in a full run, when the heap is large: 45 s in all.)
    enabled = gc.isenabled()
    gc.disable()
    try:
        tree = ast.parse(source)
    finally:
        if enabled:
            gc.enable()
    hits = []
    for line, text in _strings(tree):
        if any(p.search(_without_comment_lines(text)) for p in _PATTERNS):
            hits.append((line, text))
    return hits


def outside_tmux() -> list[Path]:
    return sorted(
        p
        for p in PKG.rglob("*.py")
        if "tmux" not in p.relative_to(PKG).parts[:1]
        and str(p.relative_to(PKG.parent)) not in READERS_OF_TMUX_SYNTAX
    )


@pytest.mark.parametrize("path", outside_tmux(), ids=lambda p: str(p.relative_to(PKG.parent)))
def test_no_tmux_syntax_outside_mytty_tmux(path: Path) -> None:
    hits = tmux_syntax(path.read_text(encoding="utf-8"))
    assert not hits, (
        f"{path.relative_to(PKG.parent)} spells tmux syntax (add a TmuxPort verb): "
        + ("; ".join(f"line {n}: {t!r}" for n, t in hits))
    )


@pytest.mark.parametrize(
    "source",
    [
        'line = f"set-environment -gu {name}"',
        'await port.run(f"kill-session -t ={PRIVATE_SESSION}")',
        "cmd = \"rename-window -t @1 'x'\"",
        "argv = [tmux, '-S', sock, 'switch-client', '-t', target]",
        "hint = f'detach and run: tmux -S {sock} attach -t {session}'",
        "fmt = '#{pane_id} #{pane_pid}'",
        "hint = 'run: tmux -S /tmp/s new -s work'",
        "keepalive = f\"tail -f /dev/null; exec {tmux} set-hook -gu 'x[1]'\"",
        'unset = " \\\\; ".join(["a"]) + "; set-hook -gu x"',
    ],
)
def test_the_checker_finds_tmux_syntax(source: str) -> None:
    assert tmux_syntax(source)


@pytest.mark.parametrize(
    "source",
    [
        '"""Docstrings may say `split-window -e` and #{pane_id}."""',
        'hooks = ("after-split-window", "pane-exited", "window-linked")',
        'msg = "the new pane exited immediately"',
        'help_text = "Prepare everything but don\'t attach."',
        'key = "Enter"',
        'text = "mytty: the display settings"',
        'wire = {"type": "send", "text": "x"}',
        "fish = f'set -gx {name} {value}'",
        'msg = "no tmux server on the socket; set MYTTY_TMUX_SOCKET"',
    ],
)
def test_the_checker_leaves_other_strings_alone(source: str) -> None:
    assert not tmux_syntax(source)


def test_comment_lines_are_prose_but_the_lines_around_them_are_not() -> None:
    comment = 'TEXT = "# run tmux kill-server to stop\\nkey = 1\\n"\n'
    assert tmux_syntax(comment) == []
    command = 'TEXT = "# a comment\\nkill-server -t x\\n"\n'
    assert [line for line, _ in tmux_syntax(command)] == [1]
