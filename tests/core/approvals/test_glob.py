"""The patterns of the rules: command globs, path globs, and the escape --always writes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.approvals import glob

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)


@given(TEXT, TEXT)
def test_an_escaped_text_matches_it_and_nothing_else(text: str, other: str) -> None:
    pattern = glob.escape(text)
    assert not glob.has_wildcard(pattern)
    assert glob.match_command(pattern, text) and glob.match_path(pattern, text)
    if other != text:
        assert not glob.match_command(pattern, other)


def test_command_wildcards_cross_slashes_and_lines() -> None:
    assert glob.match_command("git *", "git log --stat -- a/b")
    assert glob.match_command("echo ?", "echo x") and not glob.match_command("echo ?", "echo xy")
    assert glob.match_command("a*b", "a\nb")
    assert glob.match_command("[gh]it*", "hit me") and not glob.match_command("[!g]it", "git")
    assert not glob.match_command("git status", "git status --short")  # anchored


def test_path_wildcards_stay_in_a_segment_and_double_stars_span_them() -> None:
    assert glob.match_path("src/*.py", "src/a.py") and not glob.match_path("src/*.py", "src/x/a.py")
    assert glob.match_path("src/**/*.py", "src/a.py") and glob.match_path(
        "src/**/*.py", "src/x/y/a.py"
    )
    assert glob.match_path("**", "a/b/c") and glob.match_path("**/key", "k/e/key")
    assert not glob.match_path("?", "/") and not glob.match_path("[/]", "/")


def test_an_unclosed_bracket_is_a_literal() -> None:
    assert glob.match_command("a[b", "a[b") and not glob.has_wildcard("a[b")
    assert glob.has_wildcard("a*") and glob.has_wildcard("[ab]") and not glob.has_wildcard("[a]")
