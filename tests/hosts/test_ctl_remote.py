"""``mytty-ctl`` on another host, against a real sshd on loopback and a second account's own
controller (tests/hosts/remote.py): the same replies with qualified ids, routing by qualified
id, every failure code, a worker spawned there and waited for from here, waits over several
hosts, and a wait that outlives its SSH connection and the controller there."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.jobs_support import enable_integrations
from tests.hosts.conftest import close_links, links_of, local_with_host
from tests.hosts.remote import SecondMachine, free_port
from tests.support.harness import BackgroundCtl, Mytty, wait_until

pytestmark = pytest.mark.tmux

UUID = r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"


@pytest.fixture(scope="module")
def lead(machine: SecondMachine) -> Iterator[Mytty]:
    """Host A: a controller with a stand-in claude of its own, host ``b`` = the machine."""
    m = local_with_host(machine)
    try:
        m.install_standins("claude")
        enable_integrations(m, "claude")
        yield m
    finally:
        m.close()
        close_links(m)


def lead_env(m: Mytty) -> dict[str, str]:
    """What mytty-ctl sees in the lead's pane: its pane id and the controller's socket."""
    return {"MYTTY_SURFACE_ID": m.first_pane(), "MYTTY_CONTROL_SOCKET": m.control_socket}


def unqualified(value: Any) -> Any:
    """A reply with the ``b:`` taken off every id (what b itself answers)."""
    return json.loads(re.sub(rf'"b:({UUID})"', r'"\1"', json.dumps(value)))


def master_pid(m: Mytty, machine: SecondMachine) -> int | None:
    proc = subprocess.run(
        ["ssh", "-F", str(machine.sshd.ssh_config), "-p", str(machine.sshd.port),
         "-o", f"ControlPath={links_of(m)}/%C", "-O", "check", machine.sshd.destination],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = re.search(r"pid=(\d+)", proc.stderr)
    return int(found.group(1)) if proc.returncode == 0 and found else None


# -- the same commands, the same replies ------------------------------------------------------------
def test_list_answers_as_the_host_does_with_its_ids_qualified(
    lead: Mytty, machine: SecondMachine
) -> None:
    there = json.loads(machine.user.ctl("list").stdout)
    reply = lead.ctl("--host", "b", "list").json
    assert reply["type"] == "list" and reply["panes"]
    assert all(re.fullmatch(f"b:{UUID}", pane["paneID"]) for pane in reply["panes"])
    assert unqualified(reply)["panes"][0] == there["panes"][0] | {
        "command": unqualified(reply)["panes"][0]["command"]  # (the foreground process)
    }
    # --host=NAME, --host among the arguments and MYTTY_HOST all say the same.
    for argv, env in (
        (["--host=b", "list"], None),
        (["list", "--host", "b"], None),
        (["list"], {"MYTTY_HOST": "b"}),
    ):
        again = lead.ctl(*argv, env=env).json
        assert [p["paneID"] for p in again["panes"]] == [p["paneID"] for p in reply["panes"]]


def test_a_qualified_id_routes_the_command_to_its_host(lead: Mytty) -> None:
    pane = lead.ctl("--host", "b", "list").json["panes"][0]["paneID"]
    content = lead.ctl("read", pane).json["content"]
    assert content["paneID"] == pane
    # A bare id of b's goes to this host's controller, which does not know it.
    assert lead.ctl("read", pane.split(":", 1)[1]).code == "pane-not-found"


def test_a_failure_on_the_host_keeps_its_code_and_names_the_host(lead: Mytty) -> None:
    result = lead.ctl("agent", "result", "b:00000000-0000-4000-8000-000000000000")
    assert result.code == "job-not-found"
    assert result.stderr.startswith("mytty-ctl: job-not-found: host b: ")


# -- a worker on b, from a lead here ------------------------------------------------------------------
def test_a_lead_spawns_a_worker_on_b_waits_and_reads_its_result(
    lead: Mytty, machine: SecondMachine
) -> None:
    env = lead_env(lead)
    spawned = lead.ctl(
        "agent", "spawn", "--host", "b", "--provider", "claude", "--label", "far",
        "--task", "summarise\n@standin: sleep 1", env=env,
    ).json  # fmt: skip
    job = spawned["job"]
    assert re.fullmatch(f"b:{UUID}", job["jobID"]["rawValue"])
    assert re.fullmatch(f"b:{UUID}", job["paneID"]["rawValue"])
    # It runs in b's tmux (not this host's), reporting to b's controller.
    bare = job["paneID"]["rawValue"].split(":", 1)[1]
    assert bare in machine.user.ctl("list").stdout
    assert bare not in lead.ctl("list").stdout
    done = lead.ctl(
        "agent", "wait", job["jobID"]["rawValue"], "--until", "completed",
        "--timeout-seconds", "60", env=env, timeout=90,
    ).json  # fmt: skip
    assert done["timedOut"] is False and done["job"]["state"] == "succeeded"
    assert done["job"]["runID"]["rawValue"].startswith("b:")
    result = lead.ctl("agent", "result", job["jobID"]["rawValue"], env=env).json
    assert "STANDIN turn 1 done" in result["content"]["text"]
    listed = lead.ctl("--host", "b", "agent", "list").json["jobs"]
    assert job["jobID"] in [j["jobID"] for j in listed]
    assert lead.ctl("agent", "close", job["jobID"]["rawValue"], env=env).json["type"]


def _spawn_here(m: Mytty, task: str) -> str:
    job = m.ctl("agent", "spawn", "--provider", "claude", "--task", task).json["job"]
    return str(job["jobID"]["rawValue"])


def _spawn_on_b(m: Mytty, task: str) -> str:
    job = m.ctl("--host", "b", "agent", "spawn", "--provider", "claude", "--task", task).json
    return str(job["job"]["jobID"]["rawValue"])


def test_agent_wait_all_over_two_hosts(lead: Mytty) -> None:
    here = _spawn_here(lead, "local part\n@standin: sleep 1")
    there = _spawn_on_b(lead, "remote part\n@standin: sleep 2")
    reply = lead.ctl(
        "agent", "wait", there, here, "--all", "--until", "completed", "--timeout-seconds", "60",
        timeout=90,
    ).json  # fmt: skip
    assert reply["type"] == "agentWaitResult" and reply["timedOut"] is False
    assert [j["jobID"]["rawValue"] for j in reply["jobs"]] == [there, here]  # the order given
    assert {j["state"] for j in reply["jobs"]} == {"succeeded"}
    assert reply["job"]["jobID"]["rawValue"] == here  # --all: the last in that order


def test_agent_wait_any_over_two_hosts_returns_with_the_first(lead: Mytty) -> None:
    slow = _spawn_on_b(lead, "slow\n@standin: sleep 40")
    quick = _spawn_here(lead, "quick")
    started = time.monotonic()
    reply = lead.ctl(
        "agent", "wait", slow, quick, "--any", "--until", "completed", "--timeout-seconds", "60",
        timeout=90,
    ).json  # fmt: skip
    assert time.monotonic() - started < 30
    assert reply["timedOut"] is False
    assert reply["job"]["jobID"]["rawValue"] == quick
    states = {j["jobID"]["rawValue"]: j["state"] for j in reply["jobs"]}
    assert states[quick] == "succeeded" and states[slow] in ("launching", "running")
    lead.ctl("agent", "close", slow).ok()


def test_a_wait_outlives_the_ssh_master_and_the_controller_on_b(
    lead: Mytty, machine: SecondMachine, background: list[BackgroundCtl]
) -> None:
    job = _spawn_on_b(lead, "needs a yes\n@standin: approve")
    reply = lead.ctl("agent", "wait", job, "--until", "attention", "--timeout-seconds", "60").json
    assert reply["job"]["state"] == "waiting-approval"
    waiting = BackgroundCtl(lead, "agent", "wait", job, "--until", "completed",
                            "--timeout-seconds", "120")  # fmt: skip
    background.append(waiting)
    pid = wait_until(lambda: master_pid(lead, machine), 10, message="the ssh master")
    machine.user.kill_controller()
    subprocess.run(["kill", "-9", str(pid)], check=True)
    wait_until(lambda: master_pid(lead, machine) is None, 10, message="the master gone")
    # Down on both ends: the wait goes on (it is retried until its deadline, not failed).
    assert lead.ctl("--host", "b", "list").code == "controller-not-running"
    assert waiting.running()
    machine.user.start_controller()
    lead.ctl("--host", "b", "agent", "send", job, "y", "--enter").ok()
    result = waiting.result(timeout=90)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 1  # the one result, once
    assert result.json["job"]["state"] == "succeeded"
    assert result.json["job"]["jobID"]["rawValue"] == job


# -- failures -----------------------------------------------------------------------------------------
def _with(machine: SecondMachine, **table: Any) -> Mytty:
    return local_with_host(machine, start=False, **table)


def _code(m: Mytty) -> tuple[str, str, float]:
    started = time.monotonic()
    try:
        result = m.ctl("--host", "b", "list", timeout=60)
        return result.code, result.stderr.strip(), time.monotonic() - started
    finally:
        m.close()
        close_links(m)


def test_a_name_that_is_not_configured_is_host_not_found(machine: SecondMachine) -> None:
    m = _with(machine)
    try:
        result = m.ctl("--host", "nope", "list")
        assert result.code == "host-not-found"
        assert "configured: b" in result.stderr and "mytty hosts add nope" in result.stderr
        assert m.ctl("read", "nope:0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9").code == "host-not-found"
    finally:
        m.close()


def test_a_refused_connection_is_host_unreachable(machine: SecondMachine) -> None:
    code, line, _ = _code(_with(machine, options=(f"Port={free_port()}",)))
    assert code == "host-unreachable" and "Connection refused" in line


def test_a_host_that_never_answers_is_unreachable_within_the_connect_timeout(
    machine: SecondMachine,
) -> None:
    # A server that accepts TCP and never says a word: ssh would wait for its banner forever.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        port = listener.getsockname()[1]
        code, line, took = _code(_with(machine, timeout=2, options=(f"Port={port}",)))
    finally:
        listener.close()
        for conn in held:
            conn.close()
    assert code == "host-unreachable", line
    assert 1.5 < took < 6, took  # 2 s, not a hang


def test_a_refused_login_is_host_auth_failed_with_sshs_words(machine: SecondMachine) -> None:
    code, line, _ = _code(_with(machine, ssh="nobody-here@127.0.0.1"))
    assert code == "host-auth-failed"
    assert "Permission denied (publickey)" in line


def test_a_host_without_mytty_is_told_what_to_install(machine: SecondMachine) -> None:
    code, line, _ = _code(_with(machine, mytty_ctl="/opt/none/bin/mytty-ctl"))
    assert code == "host-incompatible"
    assert "install mytty there" in line and "[hosts.b] mytty_ctl" in line


def test_a_host_speaking_another_protocol_is_host_incompatible(machine: SecondMachine) -> None:
    fake = """printf '%s\\n' '{"mytty":"9.9.9","protocol":99,"controlSocket":"/x"}' #"""
    code, line, _ = _code(_with(machine, mytty_ctl=fake))
    assert code == "host-incompatible"
    assert "runs mytty 9.9.9" in line and "same mytty version" in line


def test_a_stopped_controller_there_is_controller_not_running_naming_the_host(
    lead: Mytty, machine: SecondMachine
) -> None:
    machine.user.stop_controller()
    try:
        result = lead.ctl("--host", "b", "list")
        assert result.code == "controller-not-running"
        assert "host b: no mytty controller is running there" in result.stderr
        assert f"{machine.user.venv}/bin/mytty start" in result.stderr
    finally:
        machine.user.start_controller()
    lead.ctl("--host", "b", "list").ok()


def test_the_exec_transport_gives_the_same_reply(machine: SecondMachine) -> None:
    m = _with(machine, transport="exec")
    try:
        reply = m.ctl("--host", "b", "list").json
        assert reply["type"] == "list" and reply["panes"][0]["paneID"].startswith("b:")
        assert not (links_of(m) + "/b.sock") or not __import__("os").path.exists(
            links_of(m) + "/b.sock"
        )
        assert m.ctl("--host", "b", "agent", "result",
                     "00000000-0000-4000-8000-000000000000").code == "job-not-found"  # fmt: skip
    finally:
        m.close()
        close_links(m)
