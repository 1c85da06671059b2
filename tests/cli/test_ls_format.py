"""How `mytty ls` fits its figures into columns."""

from __future__ import annotations


def test_token_counts_fit_a_column() -> None:
    from mytty.cli.ls import tokens

    assert [tokens(n) for n in (None, 0, 999, 1000, 12_345, 4_100_000)] == [
        "",
        "0",
        "999",
        "1.0k",
        "12.3k",
        "4.1M",
    ]


def _row(**values: str) -> dict[str, str]:
    from mytty.cli.ls import _COLUMNS

    return {column: values.get(column, "") for column in _COLUMNS}


def test_columns_nobody_fills_are_left_out() -> None:
    """A fresh setup (shells and top, no agents yet) fits a 60-column pane: no empty columns
    of ellipses."""
    from mytty.cli.ls import layout

    rows = [
        _row(pane="mytty:1.0", provider="bash", state="-"),
        _row(pane="mytty:1.1", provider="top", state="-"),
    ]
    assert layout(rows, 60) == ["pane", "provider", "state"]


def test_every_column_with_a_value_is_shown_when_it_fits() -> None:
    from mytty.cli.ls import layout

    rows = [
        _row(
            pane="work:2.1",
            provider="claude-code",
            state="waiting-approval",
            job="3F2A9C1D",
            label="fix-login",
            note="a long note that wraps over several lines in its column",
            attention="approval",
            tokens="12.3k",
            age="4m",
        ),
        _row(pane="work:2.0", provider="bash", state="-"),
    ]
    columns = layout(rows, 160)
    assert columns == [
        "pane",
        "provider",
        "state",
        "job",
        "label",
        "note",
        "attention",
        "tokens",
        "age",
    ]
    # The note wraps, so it does not decide the width alone; the rest must fit unclipped.
    assert layout(rows, 120) == columns
    assert layout(rows, 60) is None  # one block per pane instead


def test_a_pane_without_an_agent_has_no_provider() -> None:
    """Issue 26, item 12: the provider column showed `python`, `bash`, `cat` (the pane's
    command) for panes without an agent."""
    from mytty.cli.ls import entries, table_rows

    tmux_rows = [
        {
            "session_name": "mytty",
            "window_index": "1",
            "pane_index": str(n),
            "pane_id": f"%{n}",
            "@mytty_surface": f"S{n}",
            "pane_current_command": command,
            "@mytty_provider": provider,
            "@mytty_state": state,
            "@mytty_job": "",
            "@mytty_label": "",
            "@mytty_note": "",
            "@mytty_attention": "",
            "@mytty_tokens": "",
            "@mytty_cost": "",
            "@mytty_rss": "",
            "@mytty_cpu": "",
            "@mytty_since": "",
        }
        for n, (command, provider, state) in enumerate(
            [("python", "", ""), ("bash", "", ""), ("cat", "", ""), ("node", "claude", "running")]
        )
    ]
    rows = table_rows(entries(tmux_rows), now=0.0)
    assert [r["provider"] for r in rows] == ["", "", "", "claude"]
