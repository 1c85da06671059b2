"""Hook integrations end to end: the real installer, stand-in agent CLIs, a real controller.

Each test installs an integration with the real ``mytty integrations enable <provider>`` (HOME =
the test home) *before* the agent starts, then runs a stand-in agent (tests/standins/) in a pane
the controller made. The stand-in reads the hook config the installer wrote and runs those
handlers — the real ``mytty-agent-hook`` launcher — with payloads in the provider's real format.
What is checked is only what mytty shows: ``list``'s ``agentState``, ``wait``, ``events``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mytty.core.events import parse_timestamp as parse_iso
from mytty.core.transcripts.claude import REGISTRY_IDLE_GRACE_S
from mytty.hook.adapters import load_adapter
from mytty.hook.identity import hook_event_id, hook_run_id
from mytty.hook.wire import encode_event_line, format_occurred_at
from mytty.integrations.codex import EVENTS as CODEX_EVENTS
from tests.e2e.approvals_support import set_approvals
from tests.e2e.events_support import stored_events
from tests.support.harness import MYTTY, BackgroundCtl, Mytty, wait_until

pytestmark = pytest.mark.tmux

_RECORD_NAME = re.compile(r"^(?P<name>[a-z-]+)\.(?P<pid>\d+)\.json$")


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------


def integrations(
    m: Mytty, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the human CLI ``mytty integrations …`` as the test's user (HOME = the test home)."""
    run_env = dict(m.env)
    if env:
        run_env.update(env)
    return subprocess.run(
        [MYTTY, "integrations", *args],
        env=run_env,
        cwd=str(m.home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def enable(m: Mytty, provider: str) -> str:
    out = integrations(m, "enable", provider)
    assert out.returncode == 0, f"enable {provider} failed: {out.stdout}{out.stderr}"
    return out.stdout


def status_lines(m: Mytty, env: dict[str, str] | None = None) -> dict[str, str]:
    out = integrations(m, "list", env=env)
    assert out.returncode == 0, out.stderr
    statuses = {}
    for line in out.stdout.splitlines():
        provider, _, rest = line.partition(": ")
        statuses[provider] = rest
    return statuses


def start_agent(m: Mytty, command: str) -> str:
    """Split the first pane with ``command`` as the new pane's initial command."""
    return m.ctl("split", m.first_pane(), "--command", command).json["paneID"]


def agent_command(binary: str, prompt: str | None = None, prefix: str = "") -> str:
    command = prefix + binary
    if binary == "codex":
        # Without Codex's shared background server, as mytty's docs advise (integrations.md):
        # its hooks run with the environment of whichever pane started it.
        command += " --no-daemon"
    if prompt is not None:
        command += " -- " + shlex.quote(prompt)
    return command


def entry(m: Mytty, pane_id: str) -> dict[str, Any]:
    for pane in m.request({"type": "list"})["panes"]:
        if pane["paneID"] == pane_id:
            return pane
    raise AssertionError(f"pane {pane_id} is not listed")


def agent_state(m: Mytty, pane_id: str) -> str | None:
    return entry(m, pane_id).get("agentState")


def wait_state(m: Mytty, pane_id: str, state: str, timeout: float = 20.0) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        e = entry(m, pane_id)
        return e if e.get("agentState") == state else None

    return wait_until(probe, timeout, message=f"agentState {state} on {pane_id}")


def standin_records(m: Mytty, name: str) -> dict[int, dict[str, Any]]:
    out = {}
    for path in m.standin_dir.iterdir():
        match = _RECORD_NAME.match(path.name)
        if match and match["name"] == name:
            out[int(match["pid"])] = json.loads(path.read_text())
    return out


def wait_standin(
    m: Mytty, name: str, known: frozenset[int] | set[int] = frozenset()
) -> tuple[int, dict[str, Any]]:
    """The launch record of the next stand-in ``name`` (one whose pid is not in ``known``)."""

    def probe() -> tuple[int, dict[str, Any]] | None:
        fresh = {pid: rec for pid, rec in standin_records(m, name).items() if pid not in known}
        assert len(fresh) <= 1, f"more than one new {name}: {sorted(fresh)}"
        return next(iter(fresh.items()), None)

    return wait_until(probe, 20, message=f"the {name} stand-in to start")


def hook_log(m: Mytty, name: str, pid: int) -> list[dict[str, Any]]:
    path = m.standin_dir / f"{name}.{pid}.hooks.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_hook(m: Mytty, name: str, pid: int, event: str, count: int = 1) -> list[dict[str, Any]]:
    """Wait until ``event`` has completed ``count`` times; returns those log entries."""

    def probe() -> list[dict[str, Any]] | None:
        hits = [e for e in hook_log(m, name, pid) if e["event"] == event]
        return hits if len(hits) >= count else None

    return wait_until(probe, 20, message=f"{count}× {event} from {name}")


def assert_hooks_clean(log: list[dict[str, Any]]) -> None:
    """Every handler run succeeded quietly, in time, without breaking the provider's rules."""
    assert log, "no hook ran"
    for run in log:
        assert run["exitCode"] == 0 and not run["timedOut"], run
        assert run["stderr"] == "", run
        assert "violation" not in run, run


def all_records(m: Mytty) -> list[dict[str, Any]]:
    """Every ledger record, with the documented ``events --after`` cursor loop."""
    cursor, out = 0, list[dict[str, Any]]()
    while True:
        page = m.ctl("events", "--after", str(cursor), "--timeout", "0").json
        if not page["records"]:
            return out
        out += page["records"]
        cursor = page["latestSequence"]


def pane_records(m: Mytty, pane_id: str) -> list[dict[str, Any]]:
    return [r for r in all_records(m) if r["paneID"] == pane_id]


def is_subsequence(wanted: list[str], seen: list[str]) -> bool:
    it = iter(seen)
    return all(any(x == w for x in it) for w in wanted)


class StateWatcher:
    """Polls ``list`` in the background and keeps every change of the pane's agentState."""

    def __init__(self, m: Mytty, pane_id: str) -> None:
        self._m = m
        self._pane = pane_id
        self.history: list[str | None] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> StateWatcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sample()  # the state the test just saw may have come after the last poll

    def _sample(self) -> None:
        try:
            state = agent_state(self._m, self._pane)
        except (AssertionError, OSError, ValueError):
            state = None
        if not self.history or self.history[-1] != state:
            self.history.append(state)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.01)

    @property
    def states(self) -> list[str]:
        return [s for s in self.history if s is not None]


def bg_wait(
    started: list[BackgroundCtl], m: Mytty, pane_id: str, until: str, timeout_s: int
) -> BackgroundCtl:
    """``mytty-ctl wait PANE --until …`` running in the background."""
    job = BackgroundCtl(m, "wait", pane_id, "--until", until, "--timeout-seconds", str(timeout_s))
    started.append(job)
    return job


#: The states the acceptance criterion asks for, in order (others may come between).
ROUND_TRIP = ["running", "waiting-approval", "running", "succeeded"]


# ------------------------------------------------------------------------------------------------
# Claude Code
# ------------------------------------------------------------------------------------------------


def test_claude_approval_round_trip(mytty: Mytty, background: list[BackgroundCtl]) -> None:
    m = mytty
    out = enable(m, "claude-code")
    assert "claude-code: installed" in out
    settings = json.loads((m.home / ".claude" / "settings.json").read_text())
    assert "PermissionRequest" in settings["hooks"]
    m.install_standins("claude")

    prompt = "Create the marker file.\n@standin: sleep 2\n@standin: approve\n@standin: linger 2"
    pane = start_agent(m, agent_command("claude", prompt))
    with StateWatcher(m, pane) as watcher:
        pid, record = wait_standin(m, "claude")
        assert record["argv"] == ["--", prompt]
        assert record["env"]["MYTTY_SURFACE_ID"] == pane
        wait_state(m, pane, "running")
        assert entry(m, pane)["provider"] == "claude-code"
        assert entry(m, pane)["command"] == "Claude Code"

        attention = bg_wait(background, m, pane, "attention", 30)
        m.wait_for_text(pane, "STANDIN waiting for approval")
        waited = attention.result().json
        assert waited == {"type": "waitResult", "state": "waiting-approval", "timedOut": False}
        assert agent_state(m, pane) == "waiting-approval"

        # Not satisfied while the approval is pending: it must report the *final* state.
        idle = bg_wait(background, m, pane, "idle", 30)
        assert m.ctl("send", pane, "1", "--enter").json == {"type": "ok"}
        wait_state(m, pane, "running")
        wait_state(m, pane, "succeeded")
        assert idle.result().json == {"type": "waitResult", "state": "succeeded", "timedOut": False}
        m.wait_for_text(pane, "STANDIN ready")
    assert is_subsequence(ROUND_TRIP, watcher.states), watcher.history

    # PermissionRequest runs beside Claude's dialog (2.1.332): the answer in the pane ends the
    # broker's hold, and the handler is logged once it has returned (in start order below).
    wait_hook(m, "claude", pid, "PermissionRequest")
    log = sorted(hook_log(m, "claude", pid), key=lambda e: e["startedAt"])
    assert_hooks_clean(log)
    # Claude's permission_prompt Notification comes only ~6 s into an unanswered dialog (as on
    # 2.1.332); a slow machine may get there before the answer: the same flow either way.
    events = [e["event"] for e in log if e["event"] != "Notification"]
    assert events == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",  # the kill-server guard's entry (matcher Bash); silent outside workers
        "PermissionRequest",
        "PostToolBatch",
        "Stop",
    ], events
    # Exec form, exactly as the installer wrote it.
    helper = str(m.home / ".local" / "share" / "mytty" / "bin" / "mytty-agent-hook")
    assert {(e["command"], tuple(e["args"])) for e in log} == {(helper, ("claude-code",))}

    records = pane_records(m, pane)
    assert {r["provider"] for r in records} == {"claude-code"}
    assert not any(r["synthesized"] for r in records)
    kinds = [r["kind"] for r in records]
    assert is_subsequence(
        ["idle", "started", "approval-requested", "running", "succeeded"], kinds
    ), kinds
    prompt_run = {r["runID"] for r in records if r["kind"] == "started"}
    assert len(prompt_run) == 1
    assert {r["runID"] for r in records if r["kind"] != "idle"} == prompt_run


def test_claude_second_turn_and_exit(mytty: Mytty) -> None:
    """A prompt typed at the ready stand-in is a new run; ``/exit`` ends the session."""
    m = mytty
    enable(m, "claude-code")
    m.install_standins("claude")
    pane = start_agent(m, agent_command("claude", "first turn"))
    pid, _ = wait_standin(m, "claude")
    wait_state(m, pane, "succeeded")
    first_run = {r["runID"] for r in pane_records(m, pane) if r["kind"] == "succeeded"}

    m.ctl("send", pane, "second turn\n@standin: fail", "--enter")
    wait_state(m, pane, "failed")
    failed = [r for r in pane_records(m, pane) if r["kind"] == "failed"]
    assert len(failed) == 1 and failed[0]["runID"] not in first_run
    waited = m.ctl("wait", pane, "--until", "idle", "--timeout-seconds", "5").json
    assert waited["state"] == "failed"
    # Claude's registry has said idle past the interrupt grace: an API error is no Esc, so the
    # failed run must stay failed (the transcript reader once re-opened it as idle here).
    registry = m.home / ".claude" / "sessions" / f"{pid}.json"
    wait_until(
        lambda: (
            time.time() - json.loads(registry.read_text())["statusUpdatedAt"] / 1000
            > REGISTRY_IDLE_GRACE_S + 1
        ),
        10,
        message="the registry idle past the interrupt grace",
    )
    assert [r["kind"] for r in pane_records(m, pane) if r["runID"] == failed[0]["runID"]][-1] == (
        "failed"
    )

    m.ctl("send", pane, "/exit", "--enter")
    ended = wait_hook(m, "claude", pid, "SessionEnd")[0]
    assert ended["payload"]["reason"] == "prompt_input_exit"
    # As on 2.1.332, /exit has a prompt id of its own: SessionEnd must not open a run for it.
    prompts = {e["payload"].get("prompt_id") for e in hook_log(m, "claude", pid)[:-1]}
    assert ended["payload"]["prompt_id"] not in prompts
    assert_hooks_clean(hook_log(m, "claude", pid))
    # SessionEnd closes the session's own run (the one SessionStart opened), not a prompt's.
    # (Whether `list` then shows it depends on the clock: timestamps are whole seconds, and in
    # a tie the failed prompt run outranks the disconnected session run.)
    records = pane_records(m, pane)
    session_run = [r["runID"] for r in records if r["kind"] == "idle"]
    seen = [(r["kind"], r["runID"], r["synthesized"]) for r in records]
    assert [r["runID"] for r in records if r["kind"] == "disconnected"] == session_run, seen
    assert agent_state(m, pane) in ("disconnected", "failed")


def test_claude_question_is_an_input_request(mytty: Mytty, background: list[BackgroundCtl]) -> None:
    m = mytty
    enable(m, "claude-code")
    m.install_standins("claude")
    pane = start_agent(m, agent_command("claude", "Pick one\n@standin: sleep 1\n@standin: ask"))
    pid, _ = wait_standin(m, "claude")
    wait_state(m, pane, "running")
    attention = bg_wait(background, m, pane, "attention", 30)
    assert attention.result().json == {
        "type": "waitResult",
        "state": "waiting-input",
        "timedOut": False,
    }
    m.wait_for_text(pane, "STANDIN waiting for input")
    asked = wait_hook(m, "claude", pid, "PermissionRequest")[0]
    assert asked["payload"]["tool_name"] == "AskUserQuestion"
    m.ctl("send", pane, "B", "--enter")
    wait_state(m, pane, "succeeded")
    wait_hook(m, "claude", pid, "Stop")
    assert_hooks_clean(hook_log(m, "claude", pid))
    kinds = [r["kind"] for r in pane_records(m, pane)]
    assert kinds == ["idle", "started", "input-requested", "running", "succeeded"], kinds


def test_claude_background_agent_keeps_run_running(
    mytty: Mytty, background: list[BackgroundCtl]
) -> None:
    m = mytty
    enable(m, "claude-code")
    m.install_standins("claude")
    prompt = "Review in the background\n@standin: background 4"
    pane = start_agent(m, agent_command("claude", prompt))
    pid, _ = wait_standin(m, "claude")

    first_stop = wait_hook(m, "claude", pid, "Stop")[0]
    assert first_stop["exitCode"] == 0
    assert first_stop["payload"]["background_tasks"][0]["status"] == "running"
    # The final Stop is ≥ 4 s away: the run must still be running now.
    assert agent_state(m, pane) == "running"
    idle = bg_wait(background, m, pane, "idle", 30)
    assert idle.result().json == {"type": "waitResult", "state": "succeeded", "timedOut": False}
    # The stand-in prints this line before it fires the final Stop.
    assert "STANDIN background agent done" in m.read(pane)

    stops = wait_hook(m, "claude", pid, "Stop", count=2)
    assert stops[1]["payload"]["background_tasks"] == []
    assert_hooks_clean(hook_log(m, "claude", pid))
    kinds = [r["kind"] for r in pane_records(m, pane) if r["kind"] != "idle"]
    # UserPromptSubmit, SubagentStart, PostToolBatch, Stop (waiting), SubagentStop, the
    # task-notification UserPromptSubmit (running: it continues the turn), the final Stop.
    assert kinds == ["started", *["running"] * 5, "succeeded"], kinds


def test_attention_refused_without_integration(mytty: Mytty) -> None:
    m = mytty
    m.install_standins("claude")
    pane = start_agent(m, agent_command("claude"))
    pid, _ = wait_standin(m, "claude")
    m.wait_for_text(pane, "STANDIN ready")
    wait_until(
        lambda: entry(m, pane)["command"] == "Claude Code",
        15,
        message="the stand-in claude in the foreground",
    )

    assert (
        m.ctl("wait", pane, "--until", "attention", "--timeout-seconds", "5").code
        == "provider-integration-not-installed"
    )
    # Native estimation may have started a run for it by now (3 s after it appeared): it
    # runs, and is never idle while the agent is in front.
    idle = m.ctl("wait", pane, "--until", "idle", "--timeout-seconds", "0.5").json
    assert idle.get("state") in (None, "running") and idle["timedOut"] is True, idle
    # Without settings.json the stand-in ran no hook at all.
    assert hook_log(m, "claude", pid) == []
    assert entry(m, pane).get("agentState") in (None, "running")

    # Once the integration is installed the same wait is accepted (and simply times out).
    enable(m, "claude-code")
    reply = m.ctl("wait", pane, "--until", "attention", "--timeout-seconds", "0.5").json
    assert reply.get("state") in (None, "running") and reply["timedOut"] is True, reply


def _replay(
    handler: dict[str, Any], payload: dict[str, Any], env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    argv = (
        [handler["command"], *handler["args"]]
        if handler["args"] is not None
        else ["/bin/sh", "-c", handler["command"]]
    )
    return subprocess.run(
        argv,
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        timeout=20,
        check=False,
    )


def _process_env(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(e.split("=", 1) for e in raw.decode(errors="replace").split("\0") if "=" in e)


def test_retried_hook_is_deduplicated(mytty: Mytty) -> None:
    m = mytty
    enable(m, "claude-code")
    m.install_standins("claude")
    pane = start_agent(m, agent_command("claude", "one plain turn"))
    pid, _ = wait_standin(m, "claude")
    wait_state(m, pane, "succeeded")
    wait_hook(m, "claude", pid, "Stop")
    log = hook_log(m, "claude", pid)
    before = all_records(m)
    assert [r["kind"] for r in before if r["paneID"] == pane] == [
        "idle",
        "started",
        "running",
        "succeeded",
    ]

    # The agent retries two hooks: the same handler, the same payload, the same environment.
    env = _process_env(pid)
    for event in ("UserPromptSubmit", "Stop"):
        original = next(e for e in log if e["event"] == event)
        replay = _replay(original, original["payload"], env)
        assert replay.returncode == 0 and replay.stderr == b"", replay
    assert len(all_records(m)) == len(before)
    assert agent_state(m, pane) == "succeeded"

    # What the controller answered the helper: an id it already had.
    stop = next(e for e in log if e["event"] == "Stop")["payload"]
    mapping = load_adapter("claude-code").map_payload(stop)
    assert mapping is not None
    line = encode_event_line(
        event_id=hook_event_id("claude-code", mapping.kind, stop),
        run_id=hook_run_id("claude-code", mapping.run_key),
        surface_id=pane,
        provider="claude-code",
        kind=mapping.kind,
        occurred_at=format_occurred_at(time.time()),
        capability=env["MYTTY_EVENT_CAPABILITY"],
        session_id=mapping.session_id,
        message=mapping.message,
        hook_name=mapping.hook_name,
    )
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(env["MYTTY_EVENT_SOCKET"])
        s.sendall(line)
        s.shutdown(socket.SHUT_WR)
        reply = s.makefile("rb").readline()
    assert json.loads(reply) == {"ok": True, "inserted": False}
    assert len(all_records(m)) == len(before)


# ------------------------------------------------------------------------------------------------
# Cursor
# ------------------------------------------------------------------------------------------------


def test_cursor_estimated_approval(mytty: Mytty, background: list[BackgroundCtl]) -> None:
    m = mytty
    out = enable(m, "cursor")
    assert "cursor: installed" in out
    m.install_standins("cursor-agent")
    prompt = "Delete the stale fixtures\n@standin: approve\n@standin: linger 2"
    pane = start_agent(m, agent_command("cursor-agent", prompt))
    with StateWatcher(m, pane) as watcher:
        pid, _ = wait_standin(m, "cursor-agent")
        wait_state(m, pane, "running")
        assert entry(m, pane)["provider"] == "cursor"
        assert entry(m, pane)["command"] == "Cursor"
        attention = bg_wait(background, m, pane, "attention", 40)
        pre = wait_hook(m, "cursor-agent", pid, "preToolUse")[0]
        assert pre["stdout"] == "{}\n"
        m.wait_for_text(pane, "STANDIN waiting for approval")
        # Cursor says nothing while it waits: mytty's 10 s estimate turns it into an approval.
        waited = attention.result().json
        assert waited == {"type": "waitResult", "state": "waiting-approval", "timedOut": False}
        # The estimate is dated exactly the threshold after the tool call it is about (the
        # timer itself is tested on a driven clock in tests/daemon/test_clock.py).
        stored = stored_events(m)
        [call] = [e for e in stored if e.get("hookName") == "preToolUse"]
        [estimate] = [e for e in stored if e.get("hookName") == "mytty.cursorApprovalPending"]
        assert estimate["kind"] == "approval-requested"
        assert estimate["toolUseID"] == call["toolUseID"] and estimate["runID"] == call["runID"]
        gap = parse_iso(estimate["occurredAt"]) - parse_iso(call["occurredAt"])
        assert gap == pytest.approx(10.0, abs=0.0011)
        items = [i for i in m.request({"type": "attention"})["items"] if i["paneID"] == pane]
        assert [(i["kind"], i["message"], i["resolvedAt"]) for i in items] == [
            ("approval-request", "Shell requires approval", None)
        ]

        idle = bg_wait(background, m, pane, "idle", 30)
        assert m.ctl("send", pane, "y", "--enter").json == {"type": "ok"}
        wait_state(m, pane, "running")
        wait_state(m, pane, "succeeded")
        assert idle.result().json == {"type": "waitResult", "state": "succeeded", "timedOut": False}
    assert is_subsequence(ROUND_TRIP, watcher.states), watcher.history

    wait_hook(m, "cursor-agent", pid, "stop")
    log = hook_log(m, "cursor-agent", pid)
    assert_hooks_clean(log)
    assert [e["event"] for e in log] == ["beforeSubmitPrompt", "preToolUse", "postToolUse", "stop"]

    records = pane_records(m, pane)
    approvals = [r for r in records if r["kind"] == "approval-requested"]
    assert len(approvals) == 1 and approvals[0]["synthesized"] is True, records
    assert approvals[0]["toolName"] == "Shell"
    assert [r["kind"] for r in records] == [
        "started",
        "running",
        "approval-requested",
        "running",
        "succeeded",
    ]
    assert all(not r["synthesized"] for r in records if r is not approvals[0])
    assert len({r["runID"] for r in records}) == 1


def test_cursor_fast_tool_is_not_an_approval(mytty: Mytty) -> None:
    """A preToolUse answered by postToolUse at once never produces the estimate."""
    m = mytty
    enable(m, "cursor")
    m.install_standins("cursor-agent")
    pane = start_agent(m, agent_command("cursor-agent", "Quick one"))
    pid, _ = wait_standin(m, "cursor-agent")
    wait_state(m, pane, "succeeded")
    wait_hook(m, "cursor-agent", pid, "stop")
    assert_hooks_clean(hook_log(m, "cursor-agent", pid))
    # The estimate would have fired 10 s after preToolUse; the turn ended long before, and the
    # estimator forgets a run once it ends. Check the ledger after that point has passed.
    m.ctl("send", pane, "@standin: sleep 11", "--enter")
    m.wait_for_text(pane, "STANDIN turn 2 done", timeout=30)
    wait_state(m, pane, "succeeded")
    records = pane_records(m, pane)
    assert [r["kind"] for r in records] == ["started", "running", "running", "succeeded"] * 2
    assert not any(r["synthesized"] for r in records)


# ------------------------------------------------------------------------------------------------
# Codex
# ------------------------------------------------------------------------------------------------


def test_codex_enable_without_codex_cli(mytty: Mytty) -> None:
    """No codex on PATH: the trust step fails gracefully and the status says what to do."""
    m = mytty
    empty = m.root / "empty-bin"
    empty.mkdir()
    out = integrations(m, "enable", "codex", env={"PATH": str(empty)})
    assert out.returncode == 0, out.stderr
    assert "Note: could not record Codex hook trust" in out.stdout
    assert (m.home / ".codex" / "hooks.json").exists()
    status = status_lines(m, env={"PATH": str(empty)})["codex"]
    assert status.startswith("needs-repair"), status
    assert "not on PATH" in status

    # With a codex on PATH (here the stand-in, which answers `app-server` hooks/list),
    # repair records the trust and the integration is installed.
    m.install_standins("codex")
    out = integrations(m, "repair", "codex")
    assert out.returncode == 0, out.stderr
    assert "codex: installed" in out.stdout, out.stdout
    assert status_lines(m)["codex"] == "installed"
    config = (m.home / ".codex" / "config.toml").read_text()
    assert config.count("trusted_hash") == len(CODEX_EVENTS)


def test_codex_routed_by_open_rollout(mytty: Mytty, background: list[BackgroundCtl]) -> None:
    m = mytty
    # Codex shows its dialog only once the PermissionRequest hook returns: no hold here.
    set_approvals(m, hold=0)
    m.install_standins("codex")  # first on PATH, so enable records trust through it
    out = enable(m, "codex")
    assert "codex: installed" in out, out
    assert status_lines(m)["codex"] == "installed"

    # Pane A: a plain codex session.
    pane_a = start_agent(m, agent_command("codex", "plain turn"))
    pid_a, _ = wait_standin(m, "codex")
    wait_state(m, pane_a, "succeeded")
    assert entry(m, pane_a)["provider"] == "codex"

    # Pane B: its hooks carry pane A's surface id and no capability at all, as with a Codex
    # whose hooks run in a daemon another pane started. Only the open rollout file can place
    # them on pane B.
    prompt = "Escalate this\n@standin: sleep 2\n@standin: approve\n@standin: linger 2"
    pane_b = start_agent(
        m,
        agent_command(
            "codex", prompt, prefix=f"env -u MYTTY_EVENT_CAPABILITY MYTTY_SURFACE_ID={pane_a} "
        ),
    )
    with StateWatcher(m, pane_b) as watcher:
        pid_b, record_b = wait_standin(m, "codex", known={pid_a})
        assert record_b["env"]["MYTTY_SURFACE_ID"] == pane_a
        assert "MYTTY_EVENT_CAPABILITY" not in record_b["env"]
        wait_state(m, pane_b, "running")
        assert entry(m, pane_b)["provider"] == "codex"
        assert entry(m, pane_b)["command"] == "Codex"
        attention = bg_wait(background, m, pane_b, "attention", 30)
        m.wait_for_text(pane_b, "STANDIN waiting for approval")
        assert attention.result().json == {
            "type": "waitResult",
            "state": "waiting-approval",
            "timedOut": False,
        }
        m.ctl("send", pane_b, "y", "--enter")
        wait_state(m, pane_b, "running")
        wait_state(m, pane_b, "succeeded")
    assert is_subsequence(ROUND_TRIP, watcher.states), watcher.history

    # The rollout file stays open for the whole life of the process, as with real codex.
    wait_hook(m, "codex", pid_b, "Stop")
    log_b = hook_log(m, "codex", pid_b)
    assert_hooks_clean(log_b)
    rollout = log_b[0]["payload"]["transcript_path"]
    session_b = log_b[0]["payload"]["session_id"]
    assert re.search(rf"/sessions/\d{{4}}/\d\d/\d\d/rollout-[\dT-]+-{session_b}\.jsonl$", rollout)
    open_files = {os.readlink(f"/proc/{pid_b}/fd/{fd}") for fd in os.listdir(f"/proc/{pid_b}/fd")}
    assert rollout in open_files
    assert [e["event"] for e in log_b] == [
        "SessionStart",
        "UserPromptSubmit",
        "PostModelRequest",  # after each model response (the tool call), ignored by the helper
        "PreToolUse",  # the kill-server guard's entry (matcher Bash); silent outside workers
        "PermissionRequest",
        "PostToolUse",
        "PostModelRequest",  # the answer
        "Stop",
    ]

    records_a = pane_records(m, pane_a)
    records_b = pane_records(m, pane_b)
    assert [r["kind"] for r in records_a] == ["idle", "started", "running", "succeeded"]
    assert [r["kind"] for r in records_b] == [
        "idle",
        "started",
        "approval-requested",
        "running",
        "succeeded",
    ]
    assert {r["provider"] for r in records_a + records_b} == {"codex"}
    assert agent_state(m, pane_a) == "succeeded"

    # A second turn in pane B: routed again (now also by the session's earlier placement).
    m.ctl("send", pane_b, "another turn", "--enter")
    m.wait_for_text(pane_b, "STANDIN turn 2 done")
    wait_hook(m, "codex", pid_b, "Stop", count=2)
    kinds_b = [r["kind"] for r in pane_records(m, pane_b)]
    assert kinds_b[-3:] == ["started", "running", "succeeded"], kinds_b
    assert len(pane_records(m, pane_a)) == len(records_a)

    # Ending the session: mytty installs no Codex SessionEnd hook, so the pane keeps the last
    # turn's outcome.
    m.ctl("send", pane_b, "/exit", "--enter")
    m.wait_for_text(pane_b, "STANDIN bye")
    assert "SessionEnd" not in [e["event"] for e in hook_log(m, "codex", pid_b)]
    assert agent_state(m, pane_b) == "succeeded"


def test_codex_fail_exits_without_stop(mytty: Mytty) -> None:
    m = mytty
    m.install_standins("codex")
    enable(m, "codex")
    pane = start_agent(m, agent_command("codex", "doomed\n@standin: fail") + "; echo codex-exit=$?")
    pid, _ = wait_standin(m, "codex")
    m.wait_for_text(pane, "codex-exit=1")
    events = [e["event"] for e in hook_log(m, "codex", pid)]
    assert events == ["SessionStart", "UserPromptSubmit"]
    # Codex has no failure hook: the run is left as it was when the process died.
    assert [r["kind"] for r in pane_records(m, pane)] == ["idle", "started"]
