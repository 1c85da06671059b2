"""Run state through a real controller: ``list``, ``wait``, status notes and runSuperseded.

Semantics §1.3 (transitions), §1.5 (most relevant run), §1.6 (runSuperseded), §7 (wait),
§8 (status notes).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.core.ids import stable_uuid
from tests.e2e.events_support import (
    DUPLICATE,
    AgentPane,
    K,
    P,
    all_records,
    control,
    new_id,
    open_agent_pane,
    stored_events,
    wait_request,
)
from tests.support.harness import MYTTY_CTL, Mytty, wait_until

pytestmark = pytest.mark.tmux

# Both wait conditions, as the controller defines them (semantics §7).
IDLE_STATES = {"idle", "succeeded", "failed", "disconnected"}
# An ended run ends an attention wait too (a difference from the original: it can't need
# attention any more).
ATTENTION_STATES = {"waiting-input", "waiting-approval", "succeeded", "failed", "disconnected"}

# (kinds sent for one run, in order) → the run state list and wait must report.
TRANSITIONS: list[tuple[tuple[str, ...], str]] = [
    (("started",), "running"),
    (("running",), "running"),
    (("idle",), "idle"),
    (("disconnected",), "disconnected"),
    (("succeeded",), "unknown"),
    (("failed",), "unknown"),
    (("input-requested",), "unknown"),
    (("approval-requested",), "unknown"),
    (("started", "running"), "running"),
    (("started", "started"), "running"),
    (("started", "input-requested"), "waiting-input"),
    (("started", "approval-requested"), "waiting-approval"),
    (("started", "input-requested", "running"), "running"),
    (("started", "approval-requested", "running"), "running"),
    (("started", "input-requested", "approval-requested"), "waiting-input"),
    (("started", "approval-requested", "succeeded"), "waiting-approval"),
    (("started", "approval-requested", "disconnected"), "disconnected"),
    (("started", "input-requested", "idle"), "idle"),
    (("started", "succeeded"), "succeeded"),
    (("started", "failed"), "failed"),
    (("started", "disconnected"), "disconnected"),
    (("started", "idle"), "idle"),
    (("started", "succeeded", "started"), "succeeded"),
    (("started", "succeeded", "running"), "succeeded"),
    (("started", "failed", "succeeded"), "failed"),
    (("started", "disconnected", "disconnected"), "disconnected"),
    (("started", "disconnected", "idle"), "idle"),
    (("started", "succeeded", "idle", "started"), "running"),
    (("idle", "running", "approval-requested"), "waiting-approval"),
]
PROVIDERS = [P.CLAUDE_CODE, P.OPENCODE, P.ANTIGRAVITY, P.CURSOR]


def _wait_now(m: Mytty, pane_id: str, until: str) -> dict[str, Any]:
    return wait_request(m, pane_id, until, 0)


def _case_id(value: object) -> str:
    return "-".join(value) if isinstance(value, tuple) else str(value)


@pytest.mark.parametrize(("kinds", "state"), TRANSITIONS, ids=_case_id)
def test_every_transition_reaches_list_and_wait(
    shared_mytty: Mytty, kinds: tuple[str, ...], state: str
) -> None:
    pane = open_agent_pane(shared_mytty)
    provider = PROVIDERS[len(kinds) % len(PROVIDERS)]
    run = new_id()
    base = time.time()
    for i, kind in enumerate(kinds):
        pane.send(kind, run_id=run, provider=provider, occurred_at=base + i)
    entry = pane.entry()
    assert entry["provider"] == provider.value
    assert entry["agentState"] == state
    assert _wait_now(shared_mytty, pane.pane_id, "idle") == {
        "type": "waitResult",
        "state": state,
        "timedOut": state not in IDLE_STATES,
    }
    assert _wait_now(shared_mytty, pane.pane_id, "attention") == {
        "type": "waitResult",
        "state": state,
        "timedOut": state not in ATTENTION_STATES,
    }


def test_a_pane_without_events_has_no_run_keys_and_waits_with_null_state(
    shared_mytty: Mytty,
) -> None:
    pane = open_agent_pane(shared_mytty)
    entry = pane.entry()
    assert "provider" not in entry and "agentState" not in entry
    for until in ("idle", "attention"):
        reply = wait_request(shared_mytty, pane.pane_id, until, 0.3)
        assert reply == {"type": "waitResult", "state": None, "timedOut": True}
    cli = shared_mytty.ctl("wait", pane.pane_id, "--until", "idle", "--timeout-seconds", "0.2").json
    assert cli == {"type": "waitResult", "state": None, "timedOut": True}


# -- most relevant run (semantics §1.5) ------------------------------------------------------------


def test_a_stale_active_run_blocks_idle_even_after_a_newer_run_finished(
    shared_mytty: Mytty,
) -> None:
    pane = open_agent_pane(shared_mytty)
    t = time.time()
    pane.send(K.STARTED, provider=P.OPENCODE, occurred_at=t)
    newer = new_id()
    pane.send(K.STARTED, run_id=newer, provider=P.OPENCODE, occurred_at=t + 10)
    pane.send(K.SUCCEEDED, run_id=newer, provider=P.OPENCODE, occurred_at=t + 20)
    assert pane.entry()["agentState"] == "running"
    assert _wait_now(shared_mytty, pane.pane_id, "idle")["state"] == "running"


def test_the_most_relevant_run_spans_providers(shared_mytty: Mytty) -> None:
    pane = open_agent_pane(shared_mytty)
    t = time.time()
    asking = new_id()
    pane.send(K.STARTED, run_id=asking, provider=P.CURSOR, occurred_at=t)
    pane.send(K.APPROVAL_REQUESTED, run_id=asking, provider=P.CURSOR, occurred_at=t + 1)
    # A later running run of another provider has a lower priority than waiting-approval.
    pane.send(K.STARTED, provider=P.OPENCODE, occurred_at=t + 50)
    assert (pane.entry()["provider"], pane.entry()["agentState"]) == ("cursor", "waiting-approval")
    pane.send(K.RUNNING, run_id=asking, provider=P.CURSOR, occurred_at=t + 60)
    pane.send(K.SUCCEEDED, run_id=asking, provider=P.CURSOR, occurred_at=t + 70)
    assert (pane.entry()["provider"], pane.entry()["agentState"]) == ("opencode", "running")


def test_among_finished_runs_the_latest_update_wins(shared_mytty: Mytty) -> None:
    pane = open_agent_pane(shared_mytty)
    t = time.time()
    late, early = new_id(), new_id()
    pane.send(K.STARTED, run_id=late, provider=P.ANTIGRAVITY, occurred_at=t)
    pane.send(K.SUCCEEDED, run_id=late, provider=P.ANTIGRAVITY, occurred_at=t + 100)
    pane.send(K.STARTED, run_id=early, provider=P.OPENCODE, occurred_at=t + 10)
    pane.send(K.FAILED, run_id=early, provider=P.OPENCODE, occurred_at=t + 20)
    assert (pane.entry()["provider"], pane.entry()["agentState"]) == ("antigravity", "succeeded")


# -- wait: timing out, resolving, pane closing -----------------------------------------------------


def test_wait_times_out_with_the_state_it_saw(shared_mytty: Mytty) -> None:
    pane = open_agent_pane(shared_mytty)
    pane.send(K.STARTED)
    reply = shared_mytty.ctl(
        "wait", pane.pane_id, "--until", "idle", "--timeout-seconds", "0.5"
    ).json
    assert reply == {"type": "waitResult", "state": "running", "timedOut": True}
    reply = shared_mytty.ctl(
        "wait", pane.pane_id, "--until", "attention", "--timeout-seconds", "0"
    ).json
    assert reply == {"type": "waitResult", "state": "running", "timedOut": True}


def _connected_unix_socket(pid: int) -> bool:
    """True once process ``pid`` holds a connected Unix stream socket (its request is out)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return False
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 7 and fields[6] in inodes and fields[5] == "03":
            return True
    return False


class CtlWait:
    """A ``mytty-ctl wait`` running in the background."""

    def __init__(self, m: Mytty, *args: str) -> None:
        self.proc = subprocess.Popen(
            [MYTTY_CTL, "wait", *args],
            env=m.env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        wait_until(
            lambda: _connected_unix_socket(self.proc.pid) or self.proc.poll() is not None,
            timeout=10,
            message="mytty-ctl wait to connect",
        )
        assert self.proc.poll() is None, f"wait ended early: {self.proc.communicate()}"

    def result(self, timeout: float = 30) -> tuple[int, str, str]:
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture
def ctl_waits() -> Iterator[list[CtlWait]]:
    waits: list[CtlWait] = []
    yield waits
    for w in waits:
        w.close()


def _send_from_thread(fn: Any) -> threading.Thread:
    thread = threading.Thread(target=fn, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("until", "kind", "state"),
    [
        ("idle", K.SUCCEEDED, "succeeded"),
        ("idle", K.FAILED, "failed"),
        ("idle", K.IDLE, "idle"),
        ("idle", K.DISCONNECTED, "disconnected"),
        ("attention", K.APPROVAL_REQUESTED, "waiting-approval"),
        ("attention", K.INPUT_REQUESTED, "waiting-input"),
    ],
)
def test_a_running_ctl_wait_resolves_when_the_event_arrives(
    shared_mytty: Mytty, ctl_waits: list[CtlWait], until: str, kind: K, state: str
) -> None:
    pane = open_agent_pane(shared_mytty)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    w = CtlWait(shared_mytty, pane.pane_id, "--until", until, "--timeout-seconds", "60")
    ctl_waits.append(w)
    # An event that does not satisfy the condition wakes the wait but leaves it blocked.
    pane.send(K.RUNNING, run_id=run)
    assert w.proc.poll() is None
    sender = _send_from_thread(lambda: pane.send(kind, run_id=run))
    code, out, err = w.result()
    sender.join(10)
    assert code == 0, err
    assert json.loads(out) == {"type": "waitResult", "state": state, "timedOut": False}


def test_a_raw_wait_blocks_until_the_event(shared_mytty: Mytty) -> None:
    pane = open_agent_pane(shared_mytty)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(shared_mytty.control_socket)
        s.sendall(
            json.dumps(
                {"type": "wait", "paneID": pane.pane_id, "until": "idle", "timeoutSeconds": 60}
            ).encode()
            + b"\n"
        )
        s.settimeout(0.5)
        with pytest.raises(TimeoutError):
            s.recv(1)  # still blocked: nothing satisfies the wait yet
        pane.send(K.SUCCEEDED, run_id=run)
        s.settimeout(10)
        reply = s.recv(65536)
    finally:
        s.close()
    assert json.loads(reply) == {"type": "waitResult", "state": "succeeded", "timedOut": False}


def test_wait_on_a_pane_closed_mid_wait_fails_with_pane_not_found(
    shared_mytty: Mytty, ctl_waits: list[CtlWait]
) -> None:
    pane = open_agent_pane(shared_mytty)
    pane.send(K.STARTED)
    w = CtlWait(shared_mytty, pane.pane_id, "--until", "idle", "--timeout-seconds", "60")
    ctl_waits.append(w)
    shared_mytty.ctl("close-pane", pane.pane_id).ok()
    code, out, err = w.result()
    assert (code, out) == (1, "")
    assert err.startswith("mytty-ctl: pane-not-found: "), err


def test_wait_on_an_unknown_pane_fails_with_pane_not_found(shared_mytty: Mytty) -> None:
    assert shared_mytty.ctl("wait", new_id(), "--until", "idle", "--timeout-seconds", "5").code == (
        "pane-not-found"
    )


# -- status notes (semantics §8) -------------------------------------------------------------------


def _note(pane: AgentPane) -> str | None:
    return pane.entry().get("statusNote")


def _set_note(m: Mytty, pane: AgentPane, text: str) -> None:
    assert m.ctl("status", text, "--pane", pane.pane_id).json == {"type": "ok"}
    assert _note(pane) == text


@pytest.mark.parametrize(
    ("setup", "kind", "provider"),
    [
        ((), K.STARTED, P.CLAUDE_CODE),
        (("started",), K.IDLE, P.CLAUDE_CODE),
        (("started",), K.SUCCEEDED, P.OPENCODE),
        (("started",), K.FAILED, P.CURSOR),
        (("started",), K.DISCONNECTED, P.ANTIGRAVITY),
        ((), K.SUCCEEDED, P.OPENCODE),  # ignored by the reducer (unknown run): still clears
        (("started", "succeeded"), K.FAILED, P.OPENCODE),  # ignored transition: still clears
    ],
)
def test_run_boundaries_clear_the_status_note(
    shared_mytty: Mytty, setup: tuple[str, ...], kind: K, provider: P
) -> None:
    pane = open_agent_pane(shared_mytty)
    run = new_id()
    for step in setup:
        pane.send(step, run_id=run, provider=provider)
    _set_note(shared_mytty, pane, "refactoring the parser")
    pane.send(kind, run_id=run, provider=provider)
    assert _note(pane) is None


def test_mid_run_events_keep_the_status_note(shared_mytty: Mytty) -> None:
    pane, other = open_agent_pane(shared_mytty), open_agent_pane(shared_mytty)
    run = new_id()
    started = pane.send(K.STARTED, run_id=run)
    _set_note(shared_mytty, pane, "step 2/5: tests")
    for kind in (K.INPUT_REQUESTED, K.RUNNING, K.APPROVAL_REQUESTED, K.RUNNING):
        pane.send(kind, run_id=run)
        assert _note(pane) == "step 2/5: tests", kind
    # A retried started is a duplicate and clears nothing; nor does another pane's run ending.
    assert pane.resend(started) == DUPLICATE
    other.send(K.STARTED)
    other.send(K.IDLE)
    assert _note(pane) == "step 2/5: tests"
    # A different run (and provider) ending on the same pane clears it.
    pane.send(K.DISCONNECTED, provider=P.OPENCODE)
    assert _note(pane) is None


# -- runSuperseded (semantics §1.6) ----------------------------------------------------------------


def test_a_new_claude_prompt_idles_the_previous_active_run(shared_mytty: Mytty) -> None:
    m = shared_mytty
    pane, elsewhere = open_agent_pane(m), open_agent_pane(m)
    old, new, finished, foreign = new_id(), new_id(), new_id(), new_id()
    t = time.time()
    pane.send(K.STARTED, run_id=finished, occurred_at=t, session_id="s1")
    pane.send(K.SUCCEEDED, run_id=finished, occurred_at=t + 1, session_id="s1")
    pane.send(K.STARTED, run_id=old, occurred_at=t + 2, session_id="s1", message="first prompt")
    pane.send(K.APPROVAL_REQUESTED, run_id=old, occurred_at=t + 3, message="Bash requires approval")
    elsewhere.send(K.STARTED, run_id=foreign, occurred_at=t + 3)
    opencode = pane.send(K.STARTED, provider=P.OPENCODE, occurred_at=t + 3)
    before = {r["sequence"] for r in all_records(m)}
    assert pane.entry()["agentState"] == "waiting-approval"

    started = pane.send(K.STARTED, run_id=new, occurred_at=t + 4, session_id="s1")

    fresh = [r for r in all_records(m) if r["sequence"] not in before]
    assert [(r["runID"], r["kind"], r["synthesized"]) for r in fresh] == [
        (old, "idle", True),
        (new, "started", False),
    ]
    assert fresh[1]["sequence"] == fresh[0]["sequence"] + 1
    assert fresh[0]["paneID"] == pane.pane_id and fresh[0]["provider"] == "claude-code"
    [stored] = [
        e for e in stored_events(m) if e["runID"]["rawValue"] == old and e["kind"] == "idle"
    ]
    assert stored["hookName"] == "mytty.runSuperseded"
    assert stored["id"]["rawValue"] == stable_uuid("event", "superseded", old, new)
    assert stored["sessionID"] == "s1"
    # The old run's approval request is resolved; other panes and providers are untouched.
    items = {i["runID"]: i for i in control(m, {"type": "attention"})["items"]}
    assert items[old]["kind"] == "approval-request" and items[old]["resolvedAt"] is not None
    assert elsewhere.entry()["agentState"] == "running"
    assert [
        r
        for r in all_records(m)
        if r["runID"] in (foreign, opencode.run_id, finished) and r["kind"] == "idle"
    ] == []
    # A retried prompt supersedes nothing more, and synthesized starts never supersede.
    assert pane.resend(started) == DUPLICATE
    pane.send(K.STARTED, run_id=new_id(), hook_name="mytty.native.turnStarted")
    idles = [
        r["runID"] for r in all_records(m) if r["kind"] == "idle" and r["paneID"] == pane.pane_id
    ]
    assert idles == [old]
    assert pane.entry()["agentState"] == "running"


def test_other_providers_are_never_superseded(shared_mytty: Mytty) -> None:
    pane = open_agent_pane(shared_mytty)
    first = new_id()
    pane.send(K.STARTED, run_id=first, provider=P.OPENCODE)
    pane.send(K.STARTED, provider=P.OPENCODE)
    pane.send(K.STARTED, provider=P.CURSOR)
    assert [r["kind"] for r in all_records(shared_mytty) if r["runID"] == first] == ["started"]
    assert _wait_now(shared_mytty, pane.pane_id, "idle")["state"] == "running"
