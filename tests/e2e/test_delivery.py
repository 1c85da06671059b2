"""Bytes that reach a pane: ``send`` and ``send-key`` into a raw-mode reader, and
``--command`` shell text that must run exactly once with its full, unaltered text.
"""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

HOSTILE = 'q\'uote "dq" $(echo sub) `echo tick` $HOME ; | & < > \\ *?[] !! #\tτ日本\U0001f600 é'
MARK = "<<END>>"

# Reads the terminal in raw mode (no echo, no line editing, no CR→NL) until MARK, then
# writes exactly the bytes it got before MARK to a file.
READER = r"""
import os, sys, tty
out, mark = sys.argv[1], sys.argv[2].encode()
tty.setraw(0)
os.write(1, b"RAW-" + b"READY")
buf = b""
while not buf.endswith(mark):
    chunk = os.read(0, 4096)
    if not chunk:
        break
    buf += chunk
with open(out + ".tmp", "wb") as f:
    f.write(buf[: -len(mark)])
os.rename(out + ".tmp", out)
"""


class RawReader:
    """A pane running READER; ``collect()`` returns what arrived before the next MARK."""

    def __init__(self, m: Mytty, name: str) -> None:
        self.m = m
        self.out = m.root / f"{name}.bin"
        script = m.root / "reader.py"
        script.write_text(READER)
        argv = (sys.executable, str(script), str(self.out), MARK)
        command = " ".join(shlex.quote(a) for a in argv)
        self.pane = m.ctl("split", m.first_pane(), "right", "--command", command).json["paneID"]
        m.wait_for_text(self.pane, "RAW-READY")

    def collect(self) -> bytes:
        self.m.ctl("send", self.pane, MARK).ok()
        wait_until(self.out.exists, 10, message="the raw reader to finish")
        return self.out.read_bytes()


# -- send -----------------------------------------------------------------------------------------
def test_send_delivers_hostile_text_verbatim(mytty: Mytty) -> None:
    reader = RawReader(mytty, "send")
    text = HOSTILE + "\nsecond line\n\nfourth\x01\x7f"
    assert mytty.ctl("send", reader.pane, text).json == {"type": "ok"}
    # A newline is an Enter key press, which a raw terminal reads as CR; nothing else changes.
    assert reader.collect() == text.replace("\n", "\r").encode("utf-8")


def test_send_enter_adds_one_return(mytty: Mytty) -> None:
    reader = RawReader(mytty, "enter")
    mytty.ctl("send", reader.pane, "first", "--enter").ok()
    mytty.ctl("send", reader.pane, "second").ok()
    mytty.ctl("send", reader.pane, "", "--enter").ok()
    assert reader.collect() == b"first\rsecond\r"


# -- send-key -------------------------------------------------------------------------------------
KEYS: list[tuple[list[str], bytes]] = [
    (["escape"], b"\x1b"),
    (["tab"], b"\t"),
    (["return"], b"\r"),
    (["enter"], b"\r"),
    (["ENTER"], b"\r"),
    (["delete"], b"\x7f"),
    (["space"], b" "),
    (["up"], b"\x1b[A"),
    (["down"], b"\x1b[B"),
    (["right"], b"\x1b[C"),
    (["left"], b"\x1b[D"),
    (["f1"], b"\x1bOP"),
    (["f5"], b"\x1b[15~"),
    (["f12"], b"\x1b[24~"),
    (["a"], b"a"),
    (["Q"], b"Q"),  # tmux's own name: a capital letter is that capital
    (["7"], b"7"),
    ([";"], b";"),
    (["'"], b"'"),
    (["\\"], b"\\"),
    (["a", "--modifiers", "shift"], b"A"),
    (["c", "--modifiers", "control"], b"\x03"),
    (["tab", "--modifiers", "shift"], b"\x1b[Z"),
    (["x", "--modifiers", "option"], b"\x1bx"),
    # Issue 8: the usual modifier spellings, tmux's key names and the obvious aliases.
    (["b", "--modifiers", "ctrl"], b"\x02"),
    (["s", "--modifiers", "CTRL"], b"\x13"),
    (["c", "--modifiers", "c"], b"\x03"),
    (["x", "--modifiers", "alt"], b"\x1bx"),
    (["x", "--modifiers", "meta"], b"\x1bx"),
    (["x", "--modifiers", "m"], b"\x1bx"),
    (["b", "--modifiers", "s"], b"B"),
    (["C-c"], b"\x03"),
    (["ctrl-c"], b"\x03"),
    (["ctrl+d"], b"\x04"),
    (["M-x"], b"\x1bx"),
    (["S-Tab"], b"\x1b[Z"),
    (["BTab"], b"\x1b[Z"),
    (["Esc"], b"\x1b"),
    (["ESCAPE"], b"\x1b"),
    (["BSpace"], b"\x7f"),
    (["backspace"], b"\x7f"),
    (["PageUp"], b"\x1b[5~"),
    (["pageup"], b"\x1b[5~"),
    (["PgUp"], b"\x1b[5~"),
    (["PPage"], b"\x1b[5~"),
    (["pagedown"], b"\x1b[6~"),
    (["NPage"], b"\x1b[6~"),
    (["Home"], b"\x1b[1~"),
    (["End"], b"\x1b[4~"),
    (["DC"], b"\x1b[3~"),
    (["insert"], b"\x1b[2~"),
    (["F1"], b"\x1bOP"),
    (["!"], b"!"),
]


def test_send_key_table(mytty: Mytty) -> None:
    reader = RawReader(mytty, "keys")
    expected = b""
    for args, data in KEYS:
        assert mytty.ctl("send-key", reader.pane, *args).json == {"type": "ok"}, args
        expected += data
    assert reader.collect() == expected


def test_unknown_key_sends_nothing(mytty: Mytty) -> None:
    reader = RawReader(mytty, "nokey")
    for key in ("pagedownup", "ctrl", "ab", "é", "C-", "hyper-c", "F13"):
        assert mytty.ctl("send-key", reader.pane, key).code == "invalid-key", key
    mytty.ctl("send", reader.pane, "only this").ok()
    assert reader.collect() == b"only this"


def test_unknown_modifier_is_invalid_request_and_sends_nothing(mytty: Mytty) -> None:
    # Issue 8: `--modifiers ctrl` used to be ignored and type a plain "c".
    reader = RawReader(mytty, "nomod")
    for mods in ("hyper", "control,hyper", "ctrl-"):
        ran = mytty.ctl("send-key", reader.pane, "c", "--modifiers", mods)
        assert ran.code == "invalid-request", mods
    assert mytty.ctl(
        "send-key", "00000000-0000-0000-0000-000000000000", "c", "--modifiers", "x"
    ).code == ("invalid-request")  # checked before the pane, like the key
    mytty.ctl("send", reader.pane, "only this").ok()
    assert reader.collect() == b"only this"


# -- --command ------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["split", "new-tab"])
def test_command_runs_hostile_shell_text_verbatim(mytty: Mytty, how: str) -> None:
    out = mytty.root / "hostile.out"
    hostile = HOSTILE + "\nline two\n"
    command = f"printf '%s' {shlex.quote(hostile)} > {shlex.quote(str(out))}"
    argv = ["split", mytty.first_pane()] if how == "split" else ["new-tab"]
    mytty.ctl(*argv, "--command", command).ok()
    wait_until(lambda: out.exists() and out.stat().st_size > 0, 15, message="the command to run")
    assert out.read_bytes() == hostile.encode("utf-8")


def test_multi_line_command_runs_each_line_once_in_order(mytty: Mytty) -> None:
    log = mytty.root / "order.log"
    q = shlex.quote(str(log))
    command = f"echo one >> {q}\necho two >> {q}\n\nif true; then\n  echo three >> {q}\nfi\n"
    pane = mytty.ctl("new-tab", "--command", command).json["paneID"]
    wait_until(lambda: log.exists() and log.read_text().count("\n") == 3, 15, message="three lines")
    assert log.read_text() == "one\ntwo\nthree\n"
    # The text was run, never typed: it is not on the screen.
    assert "echo one" not in mytty.read(pane)


def test_six_splits_with_a_slow_rc_file_each_run_once(mytty: Mytty) -> None:
    # A slow login profile (sleep 1) must not eat, cut or repeat any initial command.
    profile = mytty.home / ".profile"
    profile.write_text(profile.read_text() + "sleep 1\n")
    log = mytty.root / "runs.log"
    first = mytty.first_pane()
    texts = [f"run {i}: {HOSTILE} #{i}" for i in range(6)]
    panes = []
    for text in texts:
        command = f"printf '%s\\n' {shlex.quote(text)} >> {shlex.quote(str(log))}"
        panes.append(mytty.ctl("split", first, "--command", command).json["paneID"])
    assert len(set(panes)) == 6

    def lines() -> list[str]:
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []

    wait_until(lambda: len(lines()) >= 6, 30, message="all six commands to run")
    # Give every shell another prompt: a command that ran at "the first prompt" must not run
    # again at the next one.
    for i, pane in enumerate(panes):
        mytty.ctl("send", pane, f"echo next-prompt-{i}", "--enter").ok()
    for i, pane in enumerate(panes):
        mytty.wait_for_text(pane, f"\nnext-prompt-{i}")
    assert sorted(lines()) == sorted(texts)
    # The launch files holding the text are private and gone once used.
    assert list((mytty.mytty_home / "launch").iterdir()) == []


def test_command_file_is_private_until_used(mytty: Mytty) -> None:
    # Hold the shell in its rc file so the launch file can be looked at before it is used.
    gate = mytty.root / "gate"
    profile = mytty.home / ".profile"
    profile.write_text(
        profile.read_text() + f"while [ ! -e {shlex.quote(str(gate))} ]; do sleep 0.05; done\n"
    )
    out = mytty.root / "ran"
    pane = mytty.ctl(
        "split", mytty.first_pane(), "--command", f"touch {shlex.quote(str(out))}"
    ).json["paneID"]
    launch = mytty.mytty_home / "launch"
    files = wait_until(lambda: list(launch.iterdir()), 10, message="the launch file")
    assert [f.name for f in files] == [f"{pane}.sh"]
    assert files[0].stat().st_mode & 0o777 == 0o600
    assert launch.stat().st_mode & 0o777 == 0o700
    assert not out.exists()
    gate.touch()
    wait_until(out.exists, 15, message="the command to run after the rc file")
    wait_until(lambda: not list(launch.iterdir()), 10, message="the launch file to be removed")
