"""docs/reference/mytty.md is generated from the typer app: it must be current and complete."""

from __future__ import annotations

from pathlib import Path

from typer.main import get_command

from mytty.cli.main import app
from mytty.cli.manual import _commands, update_page

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "mytty.md"


def test_the_committed_page_is_current() -> None:
    current = PAGE.read_text(encoding="utf-8")
    assert update_page(current) == current, "docs/reference/mytty.md is stale: run scripts/gen-docs"


def test_every_visible_command_has_a_section_with_its_options() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for words, command, _ in _commands(get_command(app), []):
        assert f"### `mytty {' '.join(words)}`" in page
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                assert f"`{param.opts[0]}`" in page


def test_hidden_options_stay_out() -> None:
    assert "--ready-fd" not in PAGE.read_text(encoding="utf-8")
