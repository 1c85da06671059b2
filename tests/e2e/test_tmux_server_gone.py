"""A dead tmux server takes its panes with it at once (issue 15 #4).

Before, the controller kept the dead server's panes until a new server appeared: their
capabilities still got ``inserted: true`` and ``agent wait`` reported the dead worker
``running``. Now the moment the control connection reports the server gone (and a probe of
the socket confirms no server with the same identity answers), its panes are forgotten:
capabilities are revoked, jobs read ``lost``, and active runs are closed as the startup sweep
closes them (``disconnected``, ``mytty.startupSweep``, synthesized).
"""

from __future__ import annotations

import pytest

from tests.e2e.events_support import (
    INSERTED,
    K,
    error_reply,
    events_request,
    new_id,
    open_agent_pane,
    send_event,
)
from tests.e2e.jobs_support import agent_wait, new_anchor, spawn, team
from tests.e2e.test_lifecycle import kill_tmux_server, start_tmux_server
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


def test_dead_server_revokes_capabilities_and_closes_runs(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    cursor = events_request(mytty, None)["latestSequence"]

    kill_tmux_server(mytty)
    # Not "until a new server appears": the capability stops working while none is there.
    wait_until(
        lambda: (
            send_event(mytty, pane.event(K.RUNNING, run_id=run), pane.capability)
            == error_reply("unauthorized")
        ),
        10,
        message="the dead pane's capability to be revoked",
    )
    reply = events_request(mytty, cursor, 5)
    closing = [(r["kind"], r["synthesized"]) for r in reply["records"] if r["runID"] == run]
    # The probes sent before the controller saw the server die were accepted (ours, running);
    # after them the run is closed once, by the sweep.
    assert closing[-1:] == [("disconnected", True)], reply
    assert set(closing[:-1]) <= {("running", False)}, reply

    # A new server's panes are new panes; the old pane stays unknown.
    start_tmux_server(mytty, {}, panes=1)
    wait_until(lambda: mytty.ctl("list").returncode == 0, 20, message="the reconnect")
    assert pane.pane_id not in {p["paneID"] for p in mytty.panes()}
    assert send_event(mytty, pane.event(K.RUNNING, run_id=run), pane.capability) == error_reply(
        "unauthorized"
    )


def test_dead_server_makes_a_running_job_lost(mytty: Mytty) -> None:
    team(mytty, providers=("claude",))
    job = spawn(
        mytty,
        "--provider",
        "claude",
        "--task",
        "long work\n@standin: sleep 120",
        "--anchor",
        new_anchor(mytty),
    )
    assert agent_wait(mytty, job, "running", 30)["job"]["state"] == "running"

    kill_tmux_server(mytty)
    done = agent_wait(mytty, job, "completed", 15)
    assert done["timedOut"] is False and done["job"]["state"] == "lost", done


def test_a_dropped_connection_to_a_live_server_keeps_its_panes(mytty: Mytty) -> None:
    """Only the server's death revokes: a control client that merely went away reconnects."""
    pane = open_agent_pane(mytty)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    clients = mytty.tmux("list-clients", "-F", "#{client_name} #{client_control_mode}")
    control = [line.split()[0] for line in clients.splitlines() if line.endswith(" 1")]
    assert control, clients
    for name in control:
        mytty.tmux("detach-client", "-t", name)
    wait_until(lambda: "lost the tmux control connection" in mytty.log(), 10, message="the drop")
    wait_until(lambda: mytty.ctl("list").returncode == 0, 20, message="the reconnect")
    assert pane.pane_id in {p["paneID"] for p in mytty.panes()}
    assert send_event(mytty, pane.event(K.RUNNING, run_id=run), pane.capability) == INSERTED
