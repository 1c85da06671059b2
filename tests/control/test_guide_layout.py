"""``mytty-ctl guide`` fits an 80-column pane and shows every command's syntax (issue 26, item
17). Before: lines up to 121 columns (wrapped badly in a 70-column pane), and ``split``'s entry
was its summary in place of its synopsis, since the summary starts with the word "split"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mytty.control import registry
from mytty.control.manual import GUIDE_WIDTH, flow, guide_text, synopsis

CTL = str(Path(sys.executable).with_name("mytty-ctl"))


def test_the_guide_fits_80_columns() -> None:
    text = subprocess.run([CTL, "guide"], capture_output=True, text=True, check=True).stdout
    long = [line for line in text.splitlines() if len(line) > 80]
    assert long == []
    assert GUIDE_WIDTH == 80


def test_every_command_shows_its_syntax() -> None:
    text = guide_text()
    flat = " ".join(text.split())
    for command in registry.declarations():
        if command.name is None:
            continue
        shown = synopsis(command)
        if command.guide and command.guide.startswith(command.name + " "):
            shown = command.guide.split("\n", 1)[0]
        assert " ".join(shown.split()) in flat, command.name
    assert "  split PANE [left|right|up|down|auto]" in text


def test_flow_keeps_items_sentences_and_every_word() -> None:
    text = (
        "Waits for the run (never an older one). Default timeout 120 s\n"
        "(0 to 604800: a week).\n"
        "--access: leave it out when the worker is the same provider as you, so the worker\n"
        "  inherits your own permission mode.\n"
        "--model M passes the provider's own model flag.\n"
        "--cwd: defaults to your pane's directory.\n"
        "Several jobs: agent wait A B --any, or\n"
        "--all once all are."
    )
    lines = flow(text, 40, "  ")
    assert all(len(line) <= 40 for line in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())
    # Wide enough for every paragraph on one line: the paragraphs are the author's items.
    assert flow(text, 200, "  ") == [
        "  Waits for the run (never an older one). Default timeout 120 s (0 to 604800: a week).",
        "  --access: leave it out when the worker is the same provider as you, so the worker"
        " inherits your own permission mode.",
        "  --model M passes the provider's own model flag.",
        "  --cwd: defaults to your pane's directory.",
        "  Several jobs: agent wait A B --any, or --all once all are.",
    ]
