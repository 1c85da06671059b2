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
