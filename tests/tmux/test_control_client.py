"""The control-mode client keeps every reply matched to its own command.

Against a real tmux on a private socket: a command whose text cannot be put on the wire is
refused before anything is queued, and the connection keeps answering correctly. Against a
pipe-level fake tmux (a script speaking the control protocol): any reply that cannot be
matched closes the connection (the controller then reconnects and re-syncs) instead of
shifting every later reply onto the wrong command.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.tmux.control_client import ControlClient, TmuxConnectionLost

TMUX = shutil.which("tmux") or "tmux"


@pytest.fixture
def tmux_server() -> Iterator[list[str]]:
    """A private tmux server with one session ``s``; yields the tmux argv prefix."""
    root = Path(tempfile.mkdtemp(prefix="mtcc", dir="/tmp"))
    argv = [TMUX, "-S", str(root / "s"), "-f", "/dev/null"]
    subprocess.run([*argv, "new-session", "-d", "-s", "s"], check=True)
    try:
        yield argv
    finally:
        subprocess.run([*argv, "kill-server"], check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 30))


@pytest.mark.tmux
@pytest.mark.parametrize(
    "bad",
    [
        "display-message -p '\ud800'",  # a lone surrogate: not UTF-8-encodable
        "display-message -p 'a\0b'",  # NUL: tmux would cut the line there
        "   ",  # tmux answers nothing at all for a blank line...
        "# a comment",  # ... or a comment
    ],
)
def test_unsendable_command_is_refused_and_the_connection_stays_in_step(
    tmux_server: list[str], bad: str
) -> None:
    async def scenario() -> None:
        client = ControlClient(tmux_server, "=s", lambda kind, rest: None)
        await client.start()
        try:
            with pytest.raises(ValueError):
                await client.command(bad, timeout=2)
            for word in ("one", "two", "three"):
                assert await client.command(f"display-message -p {word}", timeout=5) == [word]
            rows = await client.command("list-panes -a -F '#{pane_id}'", timeout=5)
            assert rows and all(r.startswith("%") for r in rows)
        finally:
            await client.close()

    _run(scenario)


@pytest.mark.tmux
def test_replies_stay_matched_under_pipelined_commands(tmux_server: list[str]) -> None:
    async def scenario() -> None:
        client = ControlClient(tmux_server, "=s", lambda kind, rest: None)
        await client.start()
        try:
            words = [f"w{i}" for i in range(200)]
            replies = await asyncio.gather(
                *(client.command(f"display-message -p {w}", timeout=10) for w in words)
            )
            assert replies == [[w] for w in words]
        finally:
            await client.close()

    _run(scenario)


# -- a pipe-level fake tmux ----------------------------------------------------------------------
FAKE_TMUX = textwrap.dedent(
    r"""
    # Speaks tmux's control protocol: one %begin/%end block per command of each line
    # (commands split on " ; "); "display-message -p X" and "echo X" answer X.
    import sys
    n = 100
    def block(lines, flags=1):
        global n
        n += 1
        out = [f"%begin 1 {n} {flags}", *lines, f"%end 1 {n} {flags}"]
        sys.stdout.write("\n".join(out) + "\n")
        sys.stdout.flush()
    block([], flags=0)  # the attach block
    for raw in sys.stdin:
        for command in raw.rstrip("\n").split(" ; "):
            word = command.split(maxsplit=2)[-1].strip("'")
            if word == "unasked":  # answer, then one reply nobody asked for
                block([word])
                block(["stray"])
            elif word == "swallow":  # never answer this one
                continue
            else:
                block([word])
    """
)


def fake_client(tmp_path: Path) -> ControlClient:
    script = tmp_path / "fake_tmux.py"
    script.write_text(FAKE_TMUX)
    # ControlClient appends "-C attach-session ..." to the argv; the fake ignores it.
    return ControlClient([sys.executable, str(script)], "=s", lambda kind, rest: None)


def test_an_unmatched_reply_closes_the_connection_instead_of_shifting(tmp_path: Path) -> None:
    async def scenario() -> None:
        client = fake_client(tmp_path)
        await client.start()
        try:
            first = asyncio.ensure_future(client.command("echo unasked", timeout=5))
            second = asyncio.ensure_future(client.command("echo second", timeout=5))
            assert await first == ["unasked"]
            # The stray reply must never be taken as the answer to "second".
            try:
                got = await second
            except TmuxConnectionLost:
                got = None
            assert got in (None, ["second"])
            if got is None:
                await asyncio.wait_for(client.closed.wait(), 5)
            else:
                # Matched correctly: then the stray block must have closed the connection
                # or been recognised as nobody's; the next reply is still right.
                assert await client.command("echo third", timeout=5) == ["third"]
        finally:
            await client.close()

    _run(scenario)


def test_a_command_without_a_reply_closes_the_connection(tmp_path: Path) -> None:
    async def scenario() -> None:
        client = fake_client(tmp_path)
        await client.start()
        try:
            with pytest.raises((TimeoutError, TmuxConnectionLost)):
                await client.command("echo swallow", timeout=0.5)
            # Whatever tmux says next cannot be proven to answer the next command: the
            # connection is closed so the controller reconnects and re-syncs.
            await asyncio.wait_for(client.closed.wait(), 5)
            with pytest.raises(TmuxConnectionLost):
                await client.command("echo after", timeout=5)
        finally:
            await client.close()

    _run(scenario)
