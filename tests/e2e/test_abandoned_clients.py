"""Clients that go away, never read, or come in floods cost the controller nothing lasting.

Regression tests for issue 15 defects 2 and 5: abandoned long polls (``wait``, ``events``) held
their descriptor until their timeout; unread replies held their connection and buffer forever;
at the descriptor limit the controller stopped answering both sockets and flooded its log.
"""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterator

import pytest

from tests.e2e.events_support import INSERTED, K, events_request, open_agent_pane, send_event
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


def open_request(path: str, obj: dict[str, object]) -> socket.socket:
    """Send one request the way mytty clients do (line, then SHUT_WR) and keep the socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(json.dumps(obj).encode() + b"\n")
    s.shutdown(socket.SHUT_WR)
    return s


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    yield opened
    for s in opened:
        s.close()


def long_polls(m: Mytty, count: int) -> list[dict[str, object]]:
    pane = m.first_pane()  # a shell pane that never had an event: `idle` never comes
    cursor = events_request(m, None)["latestSequence"]
    shapes: list[dict[str, object]] = [
        {"type": "wait", "paneID": pane, "until": "idle", "timeoutSeconds": 3600},
        {"type": "wait", "paneID": pane, "until": "idle", "timeoutSeconds": 604800},
        {"type": "events", "afterSequence": cursor, "timeoutSeconds": 600},
    ]
    return [shapes[i % len(shapes)] for i in range(count)]


def test_abandoned_long_polls_release_their_descriptors(
    mytty: Mytty, sockets: list[socket.socket]
) -> None:
    requests = long_polls(mytty, 210)
    baseline = mytty.open_fds()
    sockets.extend(open_request(mytty.control_socket, r) for r in requests)
    wait_until(
        lambda: mytty.open_fds() >= baseline + len(requests),
        timeout=20,
        message="every long poll to be parked",
    )
    readable, _, _ = select.select(sockets, [], [], 0)
    assert readable == [], "a long poll answered before anything happened"

    for s in sockets:
        s.close()  # Ctrl-C, a killed orchestrator: the client is gone for good
    sockets.clear()
    wait_until(
        lambda: mytty.open_fds() <= baseline + 3,
        timeout=15,
        message="the abandoned long polls' descriptors to be released",
    )
    assert mytty.ctl("list").returncode == 0


def test_a_half_closed_client_still_gets_its_answer(mytty: Mytty) -> None:
    # Every mytty client shuts down its sending side after the request: that is no hang-up.
    pane = mytty.first_pane()
    reply = mytty.request(
        {"type": "wait", "paneID": pane, "until": "idle", "timeoutSeconds": 0.5}, timeout=10
    )
    assert reply == {"type": "waitResult", "state": None, "timedOut": True}


def test_unread_replies_are_dropped_after_the_write_timeout(
    mytty: Mytty, sockets: list[socket.socket]
) -> None:
    mytty.tmux("set-option", "-g", "history-limit", "10000")
    pane = open_agent_pane(mytty).pane_id
    line = "x" * 150
    mytty.ctl("send", pane, f"yes {line} | head -n 6000; echo filled-up", "--enter").ok()
    mytty.wait_for_text(pane, "filled-up", timeout=30)
    size = len(json.dumps(mytty.ctl("read", pane).json))
    assert size > 600_000, f"the reply must outgrow the socket buffers ({size} bytes)"

    baseline = mytty.open_fds()
    for _ in range(30):  # clients that never read their reply (and never close)
        s = open_request(mytty.control_socket, {"type": "read", "paneID": pane})
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sockets.append(s)
    wait_until(
        lambda: mytty.open_fds() >= baseline + len(sockets),
        timeout=20,
        message="the controller to hold every unread reply",
    )
    wait_until(
        lambda: mytty.open_fds() <= baseline + 3,
        timeout=40,  # the write timeout is 10 s
        message="the unread replies' connections to be closed",
    )
    assert mytty.ctl("list").returncode == 0


def test_descriptor_exhaustion_refuses_new_clients_and_keeps_serving(
    bare_mytty: Mytty, sockets: list[socket.socket]
) -> None:
    m = bare_mytty
    m.start(nofile=160)
    agent = open_agent_pane(m)
    cursor = events_request(m, None)["latestSequence"]
    flood = {"type": "events", "afterSequence": cursor, "timeoutSeconds": 600}
    for _ in range(400):  # far more long polls than the controller has descriptors
        try:
            sockets.append(open_request(m.control_socket, flood))
        except OSError:  # refused so early that even the request could not be sent
            pass

    # The event socket has its own share: hooks keep being heard during a control flood.
    assert send_event(m, agent.event(K.STARTED), agent.capability) == INSERTED

    # The polls the controller took are answered (the event satisfies them); the rest were
    # refused, answered too-many-requests or (past what even that takes) closed, not left
    # hanging.
    answered = refused = 0
    for s in sockets:
        s.settimeout(15)
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        reply = json.loads(data.split(b"\n")[0]) if data else {"code": "closed"}
        if reply.get("code") in ("too-many-requests", "closed"):
            refused += 1
        else:
            assert reply["records"], data
            answered += 1
    assert answered >= 8 and refused > 0, (answered, refused)
    for s in sockets:
        s.close()
    sockets.clear()

    wait_until(lambda: m.ctl("list").returncode == 0, timeout=15, message="list to answer")
    assert send_event(m, agent.event(K.SUCCEEDED), agent.capability) == INSERTED
    log = m.log()
    assert len(log) < 20_000, f"the log grew to {len(log)} bytes"
    assert log.count("refusing new connections") <= 2, log


def test_abandoned_agent_waits_release_their_descriptors(
    mytty: Mytty, sockets: list[socket.socket]
) -> None:
    from tests.e2e.jobs_support import agent_wait, job_id, new_anchor, spawn, team

    m = team(mytty, providers=("claude",))
    job = spawn(
        m, "--provider", "claude", "--task", "busy\n@standin: sleep 60", "--anchor", new_anchor(m)
    )
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    request = {
        "type": "waitAgent",
        "jobID": {"rawValue": job_id(job)},
        "until": "completed",
        "timeoutSeconds": 604800,  # the longest wait a client may ask for
    }
    baseline = m.open_fds()
    sockets.extend(open_request(m.control_socket, request) for _ in range(60))
    wait_until(
        lambda: m.open_fds() >= baseline + 60, timeout=20, message="every agent wait to be parked"
    )
    assert select.select(sockets, [], [], 0)[0] == [], "an agent wait answered early"
    for s in sockets:
        s.close()
    sockets.clear()
    wait_until(
        lambda: m.open_fds() <= baseline + 3,
        timeout=15,
        message="the abandoned agent waits' descriptors to be released",
    )
