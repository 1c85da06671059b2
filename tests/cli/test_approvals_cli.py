"""The person's approvals commands: what they print of an agent's text, and their durations."""

from __future__ import annotations

import pytest

from mytty.cli.approvals.listing import parse_duration, printable, row


def test_control_characters_are_shown_escaped() -> None:
    assert printable("a\x1b[2Jb\x07\x00\x9b") == "a\\x1b[2Jb\\x07\\x00\\x9b"
    assert printable("naïve → ok") == "naïve → ok"


def test_a_row_is_one_printable_line_per_cell() -> None:
    entry = {
        "id": "0123456789",
        "location": None,
        "label": "a\nb",
        "provider": "codex",
        "tool": "Bash",
        "action": "x" * 300 + "\x1b",
        "truncated": True,
        "ageSeconds": 3725.0,
        "holdLeftSeconds": 4.2,
    }
    cells = row(entry)
    assert cells["id"] == "01234567" and cells["pane"] == "(closed)" and cells["label"] == "a\\x0ab"
    assert cells["action"].endswith("… (cut)") and len(cells["action"]) < 200
    assert cells["age"] == "1h02m" and cells["hold"] == "4s"
    assert all("\n" not in value and "\x1b" not in value for value in cells.values())


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90),
        ("30s", 30),
        ("10m", 600),
        ("2h", 7200),
        ("1d", 86400),
        ("1.5h", 5400),
        (" 1w ", 604800),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "h", "2 hours", "-1m", "1y"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)
