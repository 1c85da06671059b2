"""A directory name, a label, a note or a message is text: nothing runs, nothing is restyled (issue 19).

One real controller on a private tmux server, with mytty's segments installed
(``mytty tmux install``, pane borders on) and a human's client on a terminal
(tests/support/screen.py) in a session of its own. Hypothesis draws names rich in what tmux
would otherwise interpret (tests/tmux/hostile_text.py: ``#(…)``, ``#{…}``, ``##``, ``#S``,
``#[…]``, ``%d``, ``;``, quotes, backslashes, newlines, the field separator) and every command
that creates a pane or a job, and everything a person reads, is checked against them:

* ``new-tab --cwd``, ``split --cwd`` and ``agent spawn --cwd`` start in exactly that directory
  (``/proc/<pid>/cwd`` of the pane's process, the stand-in worker's own ``getcwd``), and
  ``list`` reports it as it is;
* a note (``status``), an attention message (an agent's approval request) and a label
  (``agent spawn --label``) read back unchanged from ``list``, ``mytty ls --json``,
  ``mytty attention --json``, and show as typed on the status line (the notification), the
  pane border and the attention popup;
* a ``#(cd;touch PWNED)`` fragment never runs (it would leave a file in the tmux server's
  $HOME);
* what cannot be given at all is refused with a stable error: a directory name that is not
  UTF-8 (``usage`` from mytty-ctl, ``invalid-request`` on the wire), a 4 KiB label or note.

There is no web view yet; when one comes, its escaping (HTML) is one more stage to add here.
``MYTTY_FUZZ_SCALE`` multiplies the example counts (CI runs a handful per property).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given

from tests.e2e.events_support import AgentPane, K, new_id, open_agent_pane
from tests.e2e.jobs_support import job_id, pane_of, spawn, standin_in, team
from tests.reliability import counts
from tests.support.harness import MYTTY, MYTTY_CTL, Mytty, wait_until
from tests.support.screen import Screen
from tests.tmux.hostile_text import PWNED, directory_name, drawable_text, settings_for

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

CONFIG = """\
[notify]
channels = ["message"]
cooldown = 0
"""


@dataclass
class Desk:
    """The controller, the human's terminal (session ``desk``) and an agent pane elsewhere."""

    m: Mytty
    screen: Screen
    agent: AgentPane
    dirs: Path

    def client(self) -> str:
        name = self.screen.client_name()
        assert name is not None
        return name


@pytest.fixture(scope="module")
def desk() -> Iterator[Desk]:
    m = Mytty()
    screen: Screen | None = None
    try:
        m.mytty_home.mkdir(mode=0o700, parents=True)
        (m.mytty_home / "config.toml").write_text(CONFIG)
        m.start()
        team(m, providers=("claude",))
        m.tmux("set-option", "-g", "pane-border-status", "top")
        assert cli(m, "tmux", "install").returncode == 0
        agent = open_agent_pane(m)  # in session base: the human never looks at it
        m.tmux("new-session", "-d", "-s", "desk", "-x", "160", "-y", "40")
        screen = Screen(m, "desk")
        dirs = m.root / "dirs"
        dirs.mkdir()
        yield Desk(m, screen, agent, dirs)
    finally:
        if screen is not None:
            screen.close()
        m.close()


def cli(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    """The human's ``mytty`` (wide, so no column is cut)."""
    return subprocess.run(
        [MYTTY, *args],
        env={**m.env, "COLUMNS": "250"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=str(m.home),
    )


def nothing_ran(m: Mytty) -> bool:
    return not (m.home / PWNED).exists()


def process_cwd(m: Mytty, pane_id: str) -> str | None:
    tmux_id = m.tmux_id(pane_id)
    pid = m.tmux("display-message", "-p", "-t", tmux_id, "#{pane_pid}").strip()
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def entry(m: Mytty, pane_id: str) -> dict[str, Any] | None:
    # Over the socket, not mytty-ctl's stdout: a U+2028 in a directory is one line to JSON,
    # but str.splitlines() (the harness's) would take it for two.
    reply = m.request({"type": "list"})
    return next((e for e in reply["panes"] if e["paneID"] == pane_id), None)


def make_dir(desk: Desk, name: str) -> str:
    path = desk.dirs / name
    path.mkdir(exist_ok=True)
    return str(path)


def check_started_in(m: Mytty, pane_id: str, cwd: str) -> None:
    """The pane's process runs in ``cwd`` and ``list`` says so, byte for byte."""
    wait_until(lambda: process_cwd(m, pane_id) == cwd, 15, message=f"pane in {cwd!r}")

    def listed() -> bool:
        found = entry(m, pane_id)
        return found is not None and found["workingDirectory"] == cwd

    wait_until(listed, 15, message=f"list to report {cwd!r}")


# -- the reproduction -------------------------------------------------------------------


def test_the_reported_directory_runs_nothing_and_is_where_the_tab_starts(desk: Desk) -> None:
    m = desk.m
    (m.home / "d" / "w#(cd;touch PWNED)").mkdir(parents=True)
    # As reported: a relative --cwd, from the user's home (the tmux server's $HOME too).
    pane = m.ctl("new-tab", "--cwd", "d/w#(cd;touch PWNED)").json["paneID"]
    check_started_in(m, pane, str(m.home / "d" / "w#(cd;touch PWNED)"))
    assert nothing_ran(m)
    m.ctl("close-pane", pane).ok()


# -- directories --------------------------------------------------------------------------------


@settings_for(4)
@given(name=directory_name())
@example(name="a##b")
@example(name="notes##2026 m#S d#{pane_id} h#[fg=red]z")
@example(name="nl\nx\x1fy ~$HOME 'q;\"\\")
def test_tabs_and_splits_start_in_the_directory_asked_for(desk: Desk, name: str) -> None:
    m = desk.m
    cwd = make_dir(desk, name)
    tab = m.ctl("new-tab", "--cwd", cwd).json["paneID"]
    split = m.ctl("split", tab, "down", "--cwd", cwd).json["paneID"]
    for pane in (tab, split):
        check_started_in(m, pane, cwd)
    assert nothing_ran(m)
    m.ctl("close-pane", split).ok()
    m.ctl("close-pane", tab).ok()
    counts.add("hostile directories", 2)


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("w#(cd;touch PWNED)", "#(cd;touch PWNED) a##b"),
        ("k##[x] e#", "h#[fg=red]z ##[ %d"),
        ("nl\nx", "0"),
    ],
)
def test_a_worker_starts_in_its_directory_and_keeps_its_label(
    desk: Desk, name: str, label: str
) -> None:
    m = desk.m
    cwd = make_dir(desk, name)
    job = spawn(m, "--provider", "claude", "--task", "t", "--cwd", cwd, "--label", label)
    assert job["label"] == label
    pane = pane_of(job)
    assert standin_in(m, pane, "claude").cwd == cwd
    check_started_in(m, pane, cwd)
    # The label as mytty ls reads it from tmux, and on the worker's pane border.
    rows = json.loads(cli(m, "ls", "--json").stdout)["panes"]
    assert [r["label"] for r in rows if r.get("job") == job_id(job)] == [label]
    m.tmux("switch-client", "-c", desk.client(), "-t", m.tmux_id(pane))
    try:
        desk.screen.wait_for(f" {label}]")
    finally:
        m.tmux("switch-client", "-c", desk.client(), "-t", "=desk")
    assert nothing_ran(m)
    m.ctl("agent", "close", job_id(job)).ok()
    counts.add("hostile labels")


# -- what a person reads ------------------------------------------------------------------------


def popup_rows(desk: Desk) -> str:
    desk.screen.press("C-b", "A")
    try:
        return desk.screen.wait_for("Enter jump and acknowledge")
    finally:
        desk.screen.press("q")
        wait_until(
            lambda: "Enter jump and acknowledge" not in desk.screen.text(), 10, message="closed"
        )


@settings_for(4)
@given(note=drawable_text(6), message=drawable_text(8))
@example(note="a##b m#S", message="notes##2026 #(cd;touch PWNED) %d%%")
@example(note="h#[fg=red]z", message="k##[x] #[reverse] ##[ e#")
def test_notes_and_messages_arrive_as_typed(desk: Desk, note: str, message: str) -> None:
    m, agent = desk.m, desk.agent
    run = new_id()
    agent.send(K.STARTED, run_id=run)  # a new run starts without the last one's note
    m.ctl("status", "--pane", agent.pane_id, "--", note).ok()
    assert (entry(m, agent.pane_id) or {}).get("statusNote") == note
    agent.send(K.APPROVAL_REQUESTED, run_id=run, message=message)
    # The notification on the human's status line ("…: <message>"), looked for first: tmux
    # shows it for 5 s, and on a loaded machine the checks below took longer than that.
    desk.screen.wait_for(message)

    items = json.loads(cli(m, "attention", "--json").stdout)["items"]
    assert [i["message"] for i in items if i["runID"] == run] == [message]

    def published() -> dict[str, Any] | None:
        rows = json.loads(cli(m, "ls", "--json").stdout)["panes"]
        row = next((r for r in rows if r["paneID"] == agent.pane_id), None)
        return row if row is not None and row.get("note") == note else None

    assert wait_until(published, 10, message="the note published")["attention"] == "approval"
    human = cli(m, "ls").stdout
    assert note in human, human
    table = cli(m, "attention").stdout
    assert message in table, table
    # The attention popup's row for it (whitespace runs collapse to one space there).
    shown = " ".join(message.split())
    assert any(shown in row for row in popup_rows(desk).splitlines())
    agent.send(K.SUCCEEDED, run_id=run)
    assert nothing_ran(m)
    counts.add("hostile notes and messages")


# -- what cannot be given at all ----------------------------------------------------------------


def test_a_directory_name_that_is_not_utf8_is_refused_clearly(desk: Desk) -> None:
    m = desk.m
    raw = os.fsencode(str(desk.dirs)) + b"/\xff\xfe"
    os.mkdir(raw)
    out = subprocess.run(
        [os.fsencode(MYTTY_CTL), b"new-tab", b"--cwd", raw],
        env=m.env,
        capture_output=True,
        check=False,
        cwd=str(m.home),
    )
    assert out.returncode == 1 and out.stdout == b""
    assert out.stderr.startswith(b"mytty-ctl: usage: ") and b"not valid UTF-8" in out.stderr
    # On the wire a JSON request cannot hold the bytes either (only a lone-surrogate escape).
    reply = m.request(
        b'{"type":"newTab","workingDirectory":"'
        + raw.replace(b"\xff\xfe", b"\\udcff\\udcfe")
        + b'"}\n'
    )
    assert (reply["type"], reply["code"]) == ("failure", "invalid-request"), reply


def test_four_kib_names(desk: Desk) -> None:
    m, agent = desk.m, desk.agent
    long = "#(cd;touch PWNED)" + "a#" * 2040  # 4,097 characters
    assert m.ctl("agent", "spawn", "--provider", "claude", "--task", "t", "--label", long).code == (
        "invalid-label"
    )
    assert m.ctl("status", "--pane", agent.pane_id, "--", long).code == "invalid-status"
    # A message that long is kept whole; the status line shows what fits.
    run = new_id()
    agent.send(K.STARTED, run_id=run)
    agent.send(K.APPROVAL_REQUESTED, run_id=run, message=long)
    items = json.loads(cli(m, "attention", "--json").stdout)["items"]
    assert long in [i["message"] for i in items]
    desk.screen.wait_for("#(cd;touch PWNED)a#a#a#")
    agent.send(K.SUCCEEDED, run_id=run)
    # A directory path of about 4 KiB (components of 200 bytes; PATH_MAX is 4,096).
    deep = desk.dirs
    while len(os.fsencode(str(deep))) < 3800:
        deep = deep / ("d#{pane_id}##" + "x" * 186)
    deep.mkdir(parents=True)
    pane = m.ctl("new-tab", "--cwd", str(deep)).json["paneID"]
    check_started_in(m, pane, str(deep))
    m.ctl("close-pane", pane).ok()
    assert nothing_ran(m)
