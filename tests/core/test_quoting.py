"""The one quoting function, read back by real sh, bash, zsh, fish and tmux."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.quoting import shell_line, shell_quote, shell_word
from tests.core.jobs.test_launch import HOSTILE

WORDS = st.lists(
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0")),
    min_size=1,
    max_size=4,
)


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed (the quoting tests need sh, bash, zsh and fish)")
    return path


def _echo_argv(shell: str, words: list[str]) -> list[bytes]:
    """Have ``shell`` parse the quoted words and print each argument NUL-terminated."""
    script = "printf '%s\\0' " + " ".join(shell_quote(w) for w in words)
    out = subprocess.run(
        [shell, "-c", script], stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=10
    ).stdout
    assert out.endswith(b"\0")
    return out[:-1].split(b"\0")


def test_shell_quote_examples() -> None:
    assert shell_quote("") == "''"
    assert shell_quote("abc") == "'abc'"
    assert shell_quote("a b") == "'a b'"
    assert shell_quote("it's") == "'it'\\''s'"
    assert shell_quote("a\\b") == "'a'\\\\'b'"
    assert shell_quote("'") == "\\'"
    assert shell_quote("$x") == "'$x'"


def test_shell_word_leaves_only_safe_words_bare() -> None:
    assert shell_word("read-only") == "read-only"
    assert shell_word("--permission-mode") == "--permission-mode"
    assert shell_word("gpt-5.1") == "gpt-5.1"
    assert shell_word("") == "''"
    assert shell_word("=ls") == "'=ls'"
    assert shell_word("%1") == "'%1'"
    assert shell_word("a b") == "'a b'"
    assert shell_word("~") == "'~'"
    assert shell_line(["codex", "-s", "a b"]) == "codex -s 'a b'"


@pytest.mark.parametrize("name", ["sh", "bash", "zsh", "fish"])
def test_hostile_text_round_trips_through_a_real_shell(name: str) -> None:
    words = [w for w in HOSTILE if w != ""] + [""]
    assert _echo_argv(_shell(name), words) == [w.encode() for w in words]


@pytest.mark.parametrize("name", ["sh", "zsh", "fish"])
@settings(max_examples=60, deadline=None)
@given(words=WORDS)
def test_shell_quote_round_trip_property(name: str, words: list[str]) -> None:
    assert _echo_argv(_shell(name), words) == [w.encode() for w in words]


@settings(max_examples=40, deadline=None)
@given(value=st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1))
def test_tmux_reads_the_same_quoting(tmp_path_factory: pytest.TempPathFactory, value: str) -> None:
    # tmux's command parser (used for every command the controller sends) must agree too.
    directory = tmp_path_factory.mktemp("q")
    sock = str(directory / "t.sock")
    conf = Path(directory / "t.conf")
    conf.write_text(f"set-environment -g MYTTY_Q {shell_quote(value)}\n", encoding="utf-8")
    tmux = ["tmux", "-S", sock, "-f", "/dev/null"]
    try:
        subprocess.run([*tmux, "new-session", "-d"], check=True, timeout=10)
        subprocess.run([*tmux, "source-file", str(conf)], check=True, timeout=10)
        out = subprocess.run(
            [*tmux, "show-environment", "-g", "MYTTY_Q"],
            capture_output=True,
            check=True,
            timeout=10,
        ).stdout.decode()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10, check=False)
    assert out == f"MYTTY_Q={value}\n"
