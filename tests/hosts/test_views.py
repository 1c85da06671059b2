"""Other hosts in the human views: ``mytty ls --hosts all``, and the attention popup, whose
list has b's items (host-prefixed) and whose jump to one opens a window here attached to b's
tmux at that pane over ``ssh -t`` (real sshd, b's own tmux and controller)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.e2e.test_notifications import Terminal
from tests.hosts.conftest import close_links, local_with_host
from tests.hosts.remote import SecondMachine
from tests.hosts.test_following import b_items, host_b
from tests.support.harness import MYTTY, TMUX, Mytty, wait_until

pytestmark = pytest.mark.tmux


@pytest.fixture(scope="module")
def lead(machine: SecondMachine) -> Iterator[Mytty]:
    m = local_with_host(machine, env={"MYTTY_TEST_TIMINGS": "host_backoff_max=2"})
    try:
        wait_until(lambda: host_b(m)["state"] == "current", 30, message="host b current")
        yield m
    finally:
        m.close()
        close_links(m)


def test_ls_hosts_all_lists_bs_panes_with_a_host_column(
    lead: Mytty, machine: SecondMachine
) -> None:
    proc = subprocess.run([MYTTY, "ls", "--hosts", "all", "--json"], env=lead.env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert reply["hostErrors"] == []
    here = [p for p in reply["panes"] if p["host"] is None]
    there = [p for p in reply["panes"] if p["host"] == "b"]
    assert here and there
    b_own = json.loads(machine.user.run(f"{machine.user.venv}/bin/mytty", "ls", "--json").stdout)
    assert sorted(p["paneID"] for p in there) == sorted(f"b:{p['paneID']}" for p in b_own["panes"])
    assert all(p["location"].startswith("b:") for p in there)
    table = subprocess.run([MYTTY, "ls", "--hosts", "b"], env={**lead.env, "COLUMNS": "160"},
                           capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert table.returncode == 0, table.stderr
    assert "host" in table.stdout and "here" in table.stdout and " b " in table.stdout
    unknown = subprocess.run([MYTTY, "ls", "--hosts", "nope"], env=lead.env,
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert unknown.returncode == 1 and unknown.stderr.startswith("mytty: host-not-found: ")


_CHOOSE = """
import json, sys
from mytty.cli import popup
items = [i for i in popup.open_items() if i.get("host") == "b"]
print(json.dumps({"rows": popup.rows(items, 0), "items": items}))
sys.stdout.flush()
popup.choose(items[0])
"""


def b_clients(machine: SecondMachine) -> list[str]:
    out = machine.user.run(TMUX, "-S", machine.user.tmux_socket, "list-clients", "-F",
                           "#{session_name}:#{window_index}.#{pane_index}", check=False)  # fmt: skip
    return out.stdout.split()


def test_the_popup_lists_bs_items_and_jumps_there_over_ssh(
    lead: Mytty, machine: SecondMachine
) -> None:
    job = lead.ctl("--host", "b", "agent", "spawn", "--provider", "claude", "--label", "popped",
                   "--task", "needs a yes\n@standin: approve").json["job"]  # fmt: skip
    item = wait_until(
        lambda: next((i for i in b_items(lead) if i["paneID"] == job["paneID"]["rawValue"]), None),
        30,
        message="b's item here",
    )
    terminal = Terminal(lead, "base")  # the human, whose popup this is
    try:
        wait_until(lambda: lead.tmux("list-clients").strip(), 10, message="the human's client")
        proc = subprocess.run(
            [sys.executable, "-c", _CHOOSE],
            env={**lead.env, "TMUX": f"{lead.socket},0,0"},
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        shown = json.loads(proc.stdout.splitlines()[0])
        rows: list[list[str]] = shown["rows"]
        mine = next(
            r for r, i in zip(rows, shown["items"], strict=True) if i["runID"] == item["runID"]
        )
        assert mine[0] == f"b:popped ({item['location']})" and mine[2] == "approval"
        # A window here named b runs ssh -t …, attached to b's tmux at the item's pane.
        windows = lead.tmux("list-windows", "-a", "-F", "#{window_name}").split()
        assert "b" in windows
        wait_until(lambda: item["location"] in b_clients(machine), 20,
                   message="a client of b's tmux at the item's pane")  # fmt: skip
        # The item was acknowledged on b, and is gone from the list here.
        wait_until(lambda: all(i["runID"] != item["runID"] for i in b_items(lead)), 15,
                   message="the item acknowledged")  # fmt: skip
    finally:
        terminal.close()
        lead.tmux("kill-window", "-t", "b", check=False)
        lead.ctl("agent", "close", job["jobID"]["rawValue"]).ok()
