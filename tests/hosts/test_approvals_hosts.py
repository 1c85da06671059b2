"""Host b's permission requests from host A, against the real approvals broker on b (a real
sshd on loopback, b's own controller and tmux): a stand-in worker that A's lead spawned on b
asks for approval; the request is listed by A's ``mytty approvals --hosts all`` with a host
column and a qualified id, its item shows in A's ``mytty attention --hosts all`` and A's
notification router once, and ``mytty approve b:<id>`` from A answers it there (b's audit
says a person's answer from the command line), after which A's wait returns the job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.cli.approvals.listing import short_id
from tests.hosts.conftest import close_links, local_with_host
from tests.hosts.remote import SecondMachine, free_port
from tests.hosts.test_following import b_items, host_b, notified_of
from tests.support.harness import MYTTY, MYTTY_CTL, Mytty, wait_until

pytestmark = pytest.mark.tmux

#: b's hold: long enough that the answer reaches the hook under any load.
HOLD_S = 120


def test_short_ids_keep_their_host() -> None:
    assert short_id("b:0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0") == "b:0F1E2D3C"
    assert short_id("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0") == "0F1E2D3C"


def hold_on_b(machine: SecondMachine, seconds: int) -> None:
    """``[approvals] hold_seconds`` in b's config.toml, once b's controller uses it."""
    path = machine.user.mytty_home / "config.toml"
    wanted = f"[approvals]\nhold_seconds = {seconds}\n"
    if path.exists() and path.read_text() == wanted:
        return
    before = machine.user.log().count("reloaded; the new settings are in use")
    path.write_text(wanted)
    os.chown(path, machine.user.uid, machine.user.gid)
    wait_until(
        lambda: machine.user.log().count("reloaded; the new settings are in use") > before,
        20,
        message="b's controller to reload its config.toml",
    )


@pytest.fixture
def lead(machine: SecondMachine, tmp_path: Path) -> Iterator[tuple[Mytty, Path]]:
    """Host A with [hosts.b]; its notifications go to a file, one JSON object a line."""
    hold_on_b(machine, HOLD_S)
    out = tmp_path / "notified.jsonl"
    notify = (
        "[notify]\n"
        'channels = ["command"]\n'
        "cooldown = 0\n"
        f"command = {json.dumps(f'cat >> {out}; echo >> {out}')}\n\n"
    )
    m = local_with_host(machine, config=notify)
    try:
        yield m, out
    finally:
        m.close()
        close_links(m)


def mytty(m: Mytty, *args: str) -> subprocess.CompletedProcess[str]:
    """The human's ``mytty`` on host A, from outside every pane (a person's terminal)."""
    return subprocess.run([MYTTY, *args], env=m.env, capture_output=True, text=True,
                          timeout=90, check=False)  # fmt: skip


def approvals_all(m: Mytty) -> list[dict[str, Any]]:
    done = mytty(m, "approvals", "--hosts", "all", "--json")
    assert done.returncode == 0, done.stderr
    entries: list[dict[str, Any]] = json.loads(done.stdout)
    return entries


def under_claude(m: Mytty, tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run by a process the agent detector takes for Claude Code (a script named
    ``claude``), with none of the agents' variables."""
    script = tmp_path / "claude"
    script.write_text('#!/bin/bash\n"$@"\n')  # not exec: the script stays the parent
    script.chmod(0o755)
    env = {k: v for k, v in m.env.items() if k not in ("CLAUDECODE", "CODEX_SANDBOX")}
    return subprocess.run(["/bin/bash", str(script), *argv], env=env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip


def test_a_request_on_b_is_listed_here_and_approve_b_id_answers_it_there(
    lead: tuple[Mytty, Path], tmp_path: Path
) -> None:
    m, out = lead
    wait_until(lambda: host_b(m)["state"] == "current", 30, message="host b current")
    job = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude", "--label", "asks-b",
                "--task", "needs a yes\n@standin: approve").json["job"]  # fmt: skip
    jid, pane = job["jobID"]["rawValue"], job["paneID"]["rawValue"]
    assert jid.startswith("b:") and pane.startswith("b:")

    def listed() -> dict[str, Any] | None:
        return next((e for e in approvals_all(m) if e["paneID"] == pane), None)

    entry = wait_until(listed, 30, message="b's request in mytty approvals --hosts all")
    assert entry["host"] == "b" and entry["id"].startswith("b:")
    assert entry["jobID"] == jid and entry["state"] == "holding" and entry["tool"] == "Bash"
    # The table: a host column, and the id as a prefix `mytty approve` takes.
    table = mytty(m, "approvals", "--hosts", "all")
    assert table.returncode == 0, table.stderr
    line = next(row for row in table.stdout.splitlines() if short_id(entry["id"]) in row)
    assert line.split()[0] == "b" and "asks-b" in line
    # The same request is one attention item here and one notification.
    items = wait_until(lambda: b_items(m, pane), 30, message="b's approval item here")
    assert [i["kind"] for i in items] == ["approval-request"]
    sent = wait_until(lambda: notified_of(out, pane), 15, message="the notification")
    assert len(sent) == 1 and sent[0]["host"] == "b" and sent[0]["kind"] == "approval"
    assert sent[0]["approvalID"] == entry["id"]  # what `mytty approve` here takes

    # An agent here is no lead there: b would see only its sshd, so it is refused here.
    agent_env = {**m.env, "CLAUDECODE": "1"}
    for argv in ([MYTTY, "approve", entry["id"]],
                 [MYTTY_CTL, "approval", "answer", entry["id"], "allow"]):  # fmt: skip
        refused = subprocess.run(argv, env=agent_env, capture_output=True, text=True,
                                 timeout=60, check=False)  # fmt: skip
        assert refused.returncode != 0 and "approval-not-yours" in refused.stdout + refused.stderr
    under = under_claude(m, tmp_path, [MYTTY, "deny", entry["id"]])
    assert under.returncode == 1 and "approval-not-yours" in under.stderr, under.stderr
    assert listed() is not None  # still open: nothing was sent

    # A prefix qualified with its host is answered by b's broker, within its hold.
    answered = mytty(m, "approve", short_id(entry["id"]))
    assert answered.returncode == 0, answered.stderr
    assert f"allow {short_id(entry['id'])}" in answered.stderr + answered.stdout
    done = m.ctl("agent", "wait", jid, "--until", "completed", "--timeout-seconds", "60").json
    assert done["timedOut"] is False and done["job"]["state"] == "succeeded"
    log = m.ctl("--host", "b", "approval", "log").json["entries"]
    (decided,) = [e for e in log if e["id"] == entry["id"]]
    assert decided["decision"] == "allow" and decided["decidedBy"] == "human:tty"
    assert decided["deliveredBy"] == "hook"
    wait_until(lambda: not b_items(m, pane), 30, message="b's item resolved here")
    assert len(notified_of(out, pane)) == 1
    assert all(e["paneID"] != pane for e in approvals_all(m))
    # Answered once: a second answer is b's own refusal, naming the host.
    again = mytty(m, "deny", entry["id"])
    assert again.returncode == 1 and "approval-already-answered" in again.stderr


def test_approve_names_an_unknown_host_or_request_clearly(lead: tuple[Mytty, Path]) -> None:
    m, _ = lead
    nohost = mytty(m, "approve", "nohost:0F1E2D3C")
    assert nohost.returncode == 1 and "host-not-found" in nohost.stderr
    unknown = mytty(m, "approve", "b:FFFFFFFF")
    assert unknown.returncode == 1 and "approval-not-found" in unknown.stderr
    spawned = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude",
                    "--approver", "lead", "--task", "x")  # fmt: skip
    assert spawned.code == "usage" and "--approver lead is for workers on this host" in (
        spawned.stderr
    )
    watch = mytty(m, "approvals", "--hosts", "all", "--watch")
    assert watch.returncode != 0 and "usage" in watch.stderr


_POPUP_ANSWER = """
import json, sys
from mytty.cli import popup
items = [i for i in popup.open_items() if i.get("runID") == sys.argv[1]]
print(json.dumps(items))
print(popup.answer(items[0], "allow"))
"""


def test_the_popup_answers_a_request_of_b_there(lead: tuple[Mytty, Path]) -> None:
    m, _ = lead
    wait_until(lambda: host_b(m)["state"] == "current", 30, message="host b current")
    job = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude", "--label", "popup-b",
                "--task", "needs a yes\n@standin: approve").json["job"]  # fmt: skip
    jid, pane = job["jobID"]["rawValue"], job["paneID"]["rawValue"]
    (item,) = wait_until(lambda: b_items(m, pane), 30, message="b's approval item here")
    proc = subprocess.run([sys.executable, "-c", _POPUP_ANSWER, item["runID"]], env=m.env,
                          capture_output=True, text=True, timeout=90, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    listed, said = proc.stdout.splitlines()
    (shown,) = json.loads(listed)
    request_id = shown["approval"]["id"]
    assert request_id.startswith("b:") and shown["approval"]["paneID"] == pane
    assert said.startswith(f"allow {short_id(request_id)} (Bash)")
    done = m.ctl("agent", "wait", jid, "--until", "completed", "--timeout-seconds", "60").json
    assert done["job"]["state"] == "succeeded"
    log = m.ctl("--host", "b", "approval", "log").json["entries"]
    (decided,) = [e for e in log if e["id"] == request_id]
    assert decided["decidedBy"] == "human:popup" and decided["decision"] == "allow"


def test_a_host_that_cannot_be_asked_is_one_line_and_the_others_are_listed(
    machine: SecondMachine,
) -> None:
    m = Mytty()
    m.mytty_home.mkdir(parents=True, exist_ok=True)
    closed = (
        f'\n[hosts.c]\nssh = "{machine.sshd.destination}"\nssh_options = ["Port={free_port()}"]\n'
    )
    (m.mytty_home / "config.toml").write_text(machine.host_table() + closed)
    try:
        m.start()
        done = mytty(m, "approvals", "--hosts", "all", "--json")
        assert done.returncode == 0, done.stderr
        assert isinstance(json.loads(done.stdout), list)
        (line,) = done.stderr.splitlines()
        assert line.startswith("mytty: host c: host-unreachable: ")
    finally:
        m.close()
        close_links(m)
