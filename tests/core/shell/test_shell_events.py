"""Shell event lines: exactly the shape the shells write, nothing else; chunked reads."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.shell.events import (
    MAX_LINE,
    LineSplitter,
    ShellState,
    parse_line,
)

CAP = "AB" * 32


def test_the_lines_each_shell_writes() -> None:
    bash = parse_line(f"D 42 1764581234.123456 {CAP} /tmp/a%20b%20%C3%A9".encode())
    assert bash is not None and bash.finished and bash.exit_status == 42
    assert bash.shell_time == pytest.approx(1764581234.123456)
    assert bash.cwd == "/tmp/a b é" and bash.capability == CAP
    zsh = parse_line(f"D 0 1764581234.1234567890 {CAP} /".encode())
    assert zsh is not None and zsh.cwd == "/"
    comma = parse_line(f"D 1 1764581234,5 {CAP} /x".encode())  # de_DE's EPOCHREALTIME
    assert comma is not None and comma.shell_time == 1764581234.5
    fish = parse_line(f"D 7 - {CAP} /home/u".encode())
    assert fish is not None and fish.shell_time is None
    prompt = parse_line(f"P - - {CAP} /home/u".encode())
    assert prompt is not None and not prompt.finished and prompt.exit_status is None


@pytest.mark.parametrize(
    "line",
    [
        b"",
        b"garbage",
        f"D 256 - {CAP} /".encode(),  # not an exit status
        f"D - - {CAP} /".encode(),  # D needs a status
        f"P 0 - {CAP} /".encode(),  # P has none
        f"D 0 - {CAP.lower()} /".encode(),
        f"D 0 - {CAP[:-1]} /".encode(),
        f"D 0 - {CAP} relative".encode(),
        f"D 0 - {CAP} /a b".encode(),  # raw space: not percent-encoded
        f"D 0 - {CAP} /a%2".encode(),
        f"D 0 - {CAP} /a%00b".encode(),  # NUL in a path
        f"D 0 nan {CAP} /".encode(),
        f"D 0 - {CAP} /\n".encode(),
        f"D  0 - {CAP} /".encode(),
        f"X 0 - {CAP} /".encode(),
        f"D 0 - {CAP} /".encode() + b"x" * MAX_LINE,
    ],
)
def test_anything_else_is_dropped(line: bytes) -> None:
    assert parse_line(line) is None


lines = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=10)


@given(lines=lines, cuts=st.lists(st.integers(min_value=0, max_value=500), max_size=6))
def test_chunked_reads_give_the_same_lines(lines: list[bytes], cuts: list[int]) -> None:
    data = b"".join(line + b"\n" for line in lines) + b"partial"
    splitter = LineSplitter()
    out: list[bytes] = []
    pos = 0
    for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
        out += splitter.feed(data[pos:cut])
        pos = max(pos, cut)
    assert out == lines


def test_an_over_long_line_is_skipped_whole_and_memory_stays_bounded() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"ok\n" + b"x" * (MAX_LINE + 10)) == [b"ok"]
    assert splitter.feed(b"x" * (10 * MAX_LINE)) == []
    assert len(splitter._partial) == 0
    assert splitter.feed(b"still the long line\nnext\n") == [b"next"]


def test_resuming_inside_a_line_drops_its_rest() -> None:
    splitter = LineSplitter()
    splitter.skip_partial()
    assert splitter.feed(b"ine\nwhole\n") == [b"whole"]


def test_state_keeps_the_last_command_and_a_plausible_shell_time() -> None:
    state = ShellState()
    p = parse_line(f"P - - {CAP} /a".encode())
    assert p is not None
    state.apply(p, 1000.0)
    assert (state.cwd, state.command_count, state.last_exit_status) == ("/a", 0, None)
    d = parse_line(f"D 3 999.5 {CAP} /b".encode())
    assert d is not None
    state.apply(d, 1000.0)
    assert (state.cwd, state.command_count, state.last_exit_status) == ("/b", 1, 3)
    assert state.last_exit_at == 999.5 and state.reported_at == 1000.0
    future = parse_line(f"D 0 5000 {CAP} /b".encode())  # a shell clock ahead of ours
    assert future is not None
    state.apply(future, 1001.0)
    assert state.last_exit_at == 1001.0 and state.command_count == 2
