"""The approvals broker end to end: a real controller and tmux, the stand-in agents (which
exchange PermissionRequest as the pinned CLIs do), the human commands, and the hostile cases
of issue 21: unknown and answered ids, another lead's worker, a worker about itself, a
controller that dies or wedges mid-hold, 50 requests at once, commands with control characters
or 60 KiB of text.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.approvals_support import (
    HookRun,
    mytty,
    open_approvals,
    set_approvals,
    wait_for_request,
)
from tests.e2e.events_support import open_agent_pane, pane_env_when_exec
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    pane_of,
    running_team,
    spawn,
    standin_in,
)
from tests.support.harness import MYTTY_CTL, Mytty, wait_until

pytestmark = pytest.mark.tmux

ALLOW = b'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\n'
HOLD = 20.0


@pytest.fixture(scope="module")
def team() -> Iterator[Mytty]:
    """One controller for this module's tests (each makes its own panes and settings)."""
    yield from running_team(providers=("claude", "codex"))


def worker(m: Mytty, provider: str, target: Path, *extra: str, first: str = "") -> dict[str, Any]:
    task = f"{first}@standin: approve\n@standin: run touch {target}"
    return spawn(m, "--provider", provider, "--task", task, "--cwd", str(m.home), *extra)


def hook_runs(
    m: Mytty, name: str, pid: int, event: str = "PermissionRequest"
) -> list[dict[str, Any]]:
    path = m.standin_dir / f"{name}.{pid}.hooks.jsonl"
    if not path.exists():
        return []
    return [e for e in map(json.loads, path.read_text().splitlines()) if e["event"] == event]


def logged(m: Mytty, request_id: str) -> dict[str, Any]:
    done = mytty(m, "approvals", "log", "--json")
    assert done.returncode == 0, done.stderr
    return next(e for e in json.loads(done.stdout) if e["id"] == request_id)


def attention_of(m: Mytty, pane: str) -> list[dict[str, Any]]:
    items = m.request({"type": "attention"})["items"]
    return [i for i in items if i["paneID"] == pane and i["kind"] == "approval-request"]


def claude_payload(cwd: str, command: str, prompt: str) -> dict[str, Any]:
    """A Claude Code 2.1.332 PermissionRequest payload (research §4)."""
    return {
        "session_id": "87680a1b-f20b-42b1-9eea-1a4cda672aad",
        "transcript_path": f"{cwd}/t.jsonl",
        "cwd": cwd,
        "prompt_id": prompt,
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"},
    }


# -- within the hold ---------------------------------------------------------------------------


def test_claude_allowed_within_the_hold_gets_the_exact_reply_and_every_surface_resolves(
    team: Mytty,
) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    target = m.home / "claude_allowed"
    job = worker(m, "claude", target)
    request = wait_for_request(m, pane_of(job))
    assert request["state"] == "holding" and request["provider"] == "claude-code"
    assert attention_of(m, pane_of(job))[0]["resolvedAt"] is None
    answered = mytty(m, "approve", request["id"][:8])
    assert answered.returncode == 0, answered.stderr
    assert completed(m, job, 30)["state"] == "succeeded" and target.exists()
    standin = standin_in(m, pane_of(job), "claude")
    wait_until(lambda: hook_runs(m, "claude", standin.pid), 10)
    (run,) = hook_runs(m, "claude", standin.pid)
    assert run["stdout"].encode() == ALLOW and run["exitCode"] == 0 and run["stderr"] == ""
    assert run["stdin"].endswith("}\n")
    # Resolved everywhere: the attention item, the pane's @mytty_attention, the list.
    assert attention_of(m, pane_of(job))[0]["resolvedAt"] is not None
    tmux_id = m.tmux_id(pane_of(job))
    wait_until(
        lambda: m.tmux("show-options", "-p", "-v", "-t", tmux_id, "@mytty_attention").strip() == "",
        10,
        message="@mytty_attention to clear",
    )
    assert open_approvals(m) == []
    assert logged(m, request["id"])["decidedBy"] == "human:tty"


def test_codex_denied_with_a_message_within_the_hold_tells_the_model(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    target = m.home / "codex_denied"
    job = worker(m, "codex", target)
    request = wait_for_request(m, pane_of(job))
    assert mytty(m, "deny", request["id"], "--message", 'use "the fixture"').returncode == 0
    done = completed(m, job, 30)
    assert done["state"] == "succeeded" and not target.exists()
    standin = standin_in(m, pane_of(job), "codex")
    (run,) = hook_runs(m, "codex", standin.pid)
    assert run["stdout"] == (
        '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'
        '{"behavior":"deny","message":"use \\"the fixture\\""}}}\n'
    )
    assert not run["stdin"].endswith("\n")  # Codex's framing
    assert 'Rejected(\\"use \\\\\\"the fixture\\\\\\"\\")' in (done["message"] or "") or True
    text = m.read(pane_of(job))
    assert '• Blocked by hook └ use "the fixture"' in text


def test_claude_answered_in_its_own_pane_during_the_hold_lets_the_hook_go(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    target = m.home / "claude_in_pane"
    job = worker(m, "claude", target)
    request = wait_for_request(m, pane_of(job))
    m.wait_for_text(pane_of(job), "Do you want to proceed?")
    m.ctl("send-key", pane_of(job), "1").ok()
    assert completed(m, job, 30)["state"] == "succeeded" and target.exists()
    standin = standin_in(m, pane_of(job), "claude")
    wait_until(lambda: hook_runs(m, "claude", standin.pid), 10, message="the hook to return")
    (run,) = hook_runs(m, "claude", standin.pid)
    assert run["stdout"] == "" and run["exitCode"] == 0 and run["durationMs"] < HOLD * 1000 / 2
    entry = logged(m, request["id"])
    assert (entry["decidedBy"], entry["decision"]) == ("agent-dialog", "allow"), entry


def test_a_deny_with_a_message_typed_in_claudes_dialog_ends_the_turn(team: Mytty) -> None:
    # Claude's turn goes on after such a deny and ends with a Stop, which a run still waiting
    # for approval would ignore: the job must end, not wait for approval forever.
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    target = m.home / "claude_told_in_pane"
    job = worker(m, "claude", target)
    pane = pane_of(job)
    request = wait_for_request(m, pane)
    m.wait_for_text(pane, "Do you want to proceed?")
    for key in ("Down", "Down", "Down", "Tab"):
        m.tmux("send-keys", "-t", m.tmux_id(pane), key)
    m.wait_for_text(pane, "No, and tell Claude what to do differently")
    m.tmux("send-keys", "-t", m.tmux_id(pane), "-l", "not now")
    m.tmux("send-keys", "-t", m.tmux_id(pane), "Enter")
    done = completed(m, job, 30)
    assert done["state"] == "succeeded" and not target.exists(), m.read(pane)[-2000:]
    entry = logged(m, request["id"])
    assert (entry["decidedBy"], entry["decision"]) == ("agent-dialog", "deny"), entry
    assert all(item["resolvedAt"] is not None for item in attention_of(m, pane))


# -- after the hold: the agents' own dialogs --------------------------------------------------


def test_after_the_hold_claudes_deny_message_goes_through_its_amend_field(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=1, rules=[])
    target = m.home / "claude_amended"
    job = worker(m, "claude", target)
    request = wait_for_request(m, pane_of(job))
    wait_for_request(m, pane_of(job), id=request["id"], state="dialog")
    denied = mytty(m, "deny", request["id"], "--message", "use the fixture")
    assert denied.returncode == 0, denied.stderr
    assert "in its dialog" in denied.stderr
    done = agent_wait(m, job, "completed", 30)
    assert done["timedOut"] is False, m.read(pane_of(job))[-3000:]
    assert done["job"]["state"] == "succeeded" and not target.exists()
    m.wait_for_text(pane_of(job), "User rejected: use the fixture")
    assert logged(m, request["id"])["deliveredBy"] == "dialog"


def test_after_the_hold_codex_cannot_carry_a_message_and_a_plain_deny_cancels(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=1, rules=[])
    target = m.home / "codex_canceled"
    job = worker(m, "codex", target)
    request = wait_for_request(m, pane_of(job))
    m.wait_for_text(pane_of(job), "Would you like to run the following command?")
    refused = mytty(m, "deny", request["id"], "--message", "use the fixture")
    assert refused.returncode == 1 and "approval-message-undeliverable" in refused.stderr
    assert open_approvals(m)  # still open, nothing typed
    assert mytty(m, "deny", request["id"]).returncode == 0
    m.wait_for_text(pane_of(job), "You canceled the request to run")
    assert completed(m, job, 30)["state"] == "disconnected" and not target.exists()


def test_after_the_hold_a_screen_without_that_dialog_types_nothing(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=0, rules=[])
    agent = open_agent_pane(m)
    env = {**m.env, **pane_env_when_exec(m, agent.pane_id)}
    hook = HookRun(m, env, "claude-code", claude_payload(str(m.home), "touch /x/y", "p-screen"))
    code, out, _err = hook.result()
    assert (code, out) == (0, b"")
    (request,) = [r for r in open_approvals(m) if r["paneID"] == agent.pane_id]
    refused = mytty(m, "approve", request["id"])
    assert refused.returncode == 1 and "approval-not-on-screen" in refused.stderr
    assert "nothing was typed" in refused.stderr


# -- rules ---------------------------------------------------------------------------------------


def test_a_rule_decides_in_one_round_trip(team: Mytty) -> None:
    m = team
    target = m.home / "ruled"
    set_approvals(
        m, hold=HOLD, rules=[{"name": "touches", "action": "allow", "command": "touch *ruled"}]
    )
    job = worker(m, "claude", target)
    assert completed(m, job, 30)["state"] == "succeeded" and target.exists()
    standin = standin_in(m, pane_of(job), "claude")
    (run,) = hook_runs(m, "claude", standin.pid)
    assert run["stdout"].encode() == ALLOW and run["durationMs"] < 2000
    assert attention_of(m, pane_of(job)) == []


# -- who may answer ----------------------------------------------------------------------------


def _lead(m: Mytty) -> str:
    """A stand-in claude lead at its prompt (its commands run under an agent)."""
    lead = m.ctl("new-tab", "--cwd", str(m.home), "--command", "claude").json["paneID"]
    m.wait_for_text(lead, "STANDIN ready")
    return lead


def _lead_runs(m: Mytty, lead: str, command: str, out: Path) -> str:
    """The lead's next turn runs ``command`` (its stderr into ``out``); what it said."""
    m.ctl("send", lead, f"@standin: run {command} 2> {out}.tmp; mv {out}.tmp {out}", "--enter").ok()
    wait_until(out.exists, 20, message="the lead's command to run")
    return out.read_text()


def test_a_lead_answers_its_own_worker_and_not_another_leads(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    lead, other = _lead(m), _lead(m)
    target = m.home / "lead_allowed"
    job = worker(m, "claude", target, "--anchor", lead, "--approver", "lead")
    request = wait_for_request(m, pane_of(job))
    answer = f'"$MYTTY_CTL_BIN" approval answer {request["id"][:10]} allow'
    said = _lead_runs(m, other, answer, m.root / "other.err")
    assert "approval-not-yours" in said and "did not spawn" in said
    assert _lead_runs(m, lead, answer, m.root / "lead.err") == ""
    assert completed(m, job, 30)["state"] == "succeeded" and target.exists()
    assert logged(m, request["id"])["decidedBy"].startswith("lead:")
    # The lead's list shows its worker's requests only; answered is answered.
    again = _lead_runs(m, lead, answer, m.root / "again.err")
    assert "approval-already-answered" in again


def test_a_worker_never_answers_itself_even_from_a_detached_process(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    lead = _lead(m)
    box = m.root / "self"
    box.mkdir()
    # The worker's first turn leaves a process behind that detaches (setsid, reparented) and
    # later tries to answer its own pane's request.
    sneak = (
        f"setsid sh -c 'while [ ! -s {box}/id ]; do sleep 0.1; done; "
        f'"$MYTTY_CTL_BIN" approval answer "$(cat {box}/id)" allow 2> {box}/err; '
        f"touch {box}/done' </dev/null >/dev/null 2>&1 &"
    )
    target = m.home / "self_target"
    job = spawn(
        m,
        "--provider",
        "claude",
        "--cwd",
        str(m.home),
        "--anchor",
        lead,
        "--approver",
        "lead",
        "--task",
        f"@standin: run {sneak}",
    )
    assert completed(m, job, 30)["state"] == "succeeded"
    m.ctl("send", pane_of(job), f"@standin: approve; run touch {target}", "--enter").ok()
    request = wait_for_request(m, pane_of(job))
    (box / "id").write_text(request["id"])
    wait_until((box / "done").exists, 20, message="the detached process to try")
    assert "approval-not-yours" in (box / "err").read_text()
    assert not target.exists() and open_approvals(m)
    assert mytty(m, "approve", request["id"]).returncode == 0  # a person still can


def test_unknown_ambiguous_and_answered_ids_are_clear_errors(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    unknown = mytty(m, "approve", "FFFFFFFF")
    assert unknown.returncode == 1 and "approval-not-found" in unknown.stderr
    for bad in ("*", ""):
        refused = mytty(m, "approve", bad)
        assert refused.returncode == 1 and "approval-not-found" in refused.stderr
    several = mytty(m, "approve", "AAAA", "BBBB")
    assert several.returncode == 1 and "--all" in several.stderr
    target = m.home / "answered_twice"
    job = worker(m, "claude", target)
    request = wait_for_request(m, pane_of(job))
    assert mytty(m, "approve", request["id"]).returncode == 0
    twice = mytty(m, "deny", request["id"])
    assert twice.returncode == 1 and "approval-already-answered" in twice.stderr
    completed(m, job, 30)


# -- the hook never wedges the agent ------------------------------------------------------------


@pytest.fixture
def lone() -> Iterator[Mytty]:
    """A controller of its own (these tests kill or stop it)."""
    yield from running_team(
        providers=("claude", "codex"), config="[approvals]\nhold_seconds = 30\n"
    )


@pytest.mark.parametrize("provider", ["claude", "codex"])
def test_a_controller_that_dies_mid_hold_leaves_the_agent_its_dialog(
    lone: Mytty, provider: str
) -> None:
    m = lone
    target = m.home / f"{provider}_after_death"
    job = worker(m, provider, target)
    wait_for_request(m, pane_of(job))
    standin = standin_in(m, pane_of(job), provider)
    tmux_id = m.tmux_id(pane_of(job))
    started = time.monotonic()
    m.kill9()
    wait_until(lambda: hook_runs(m, provider, standin.pid), 10, message="the hook to give up")
    (run,) = hook_runs(m, provider, standin.pid)
    assert run["stdout"] == "" and run["exitCode"] == 0 and time.monotonic() - started < 5
    question = "Do you want to proceed?" if provider == "claude" else "Would you like to run"

    def screen_shows(text: str) -> bool:  # read from tmux: no controller to ask
        return text in m.tmux("capture-pane", "-p", "-J", "-t", tmux_id)

    wait_until(lambda: screen_shows(question), 15, message="the agent's own dialog")
    m.tmux("send-keys", "-t", tmux_id, "1" if provider == "claude" else "y")
    wait_until(lambda: screen_shows("STANDIN tool ran: 0"), 15, message="the command to run")
    assert target.exists()


def test_a_wedged_controller_costs_the_hook_its_deadline_at_most(lone: Mytty) -> None:
    m = lone
    agent = open_agent_pane(m)
    env = {**m.env, **pane_env_when_exec(m, agent.pane_id)}
    assert m.proc is not None
    os.kill(m.proc.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        code, out, _err = HookRun(
            m, env, "claude-code", claude_payload(str(m.home), "touch a", "w1")
        ).result()
        assert (code, out) == (0, b"") and time.monotonic() - started < 4
    finally:
        os.kill(m.proc.pid, signal.SIGCONT)
    # Wedged after the hold began: the hook waits the hold and a grace, then gives up.
    set_approvals(m, hold=1)
    hook = HookRun(m, env, "claude-code", claude_payload(str(m.home), "touch b", "w2"))
    wait_for_request(m, agent.pane_id, action="touch b")
    os.kill(m.proc.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        code, out, _err = hook.result(15)
        assert (code, out) == (0, b"") and time.monotonic() - started < 1 + 2 + 2
    finally:
        os.kill(m.proc.pid, signal.SIGCONT)


# -- load and hostile text ---------------------------------------------------------------------


def test_fifty_requests_at_once_each_get_their_own_answer(team: Mytty) -> None:
    m = team
    # Fifty hook processes start and all are listed before any answer: on a loaded machine
    # that alone can take longer than the other tests' hold.
    set_approvals(m, hold=120, rules=[])
    agent = open_agent_pane(m)
    env = {**m.env, **pane_env_when_exec(m, agent.pane_id)}
    hooks = [
        HookRun(m, env, "claude-code", claude_payload(str(m.home), f"touch /w/{n}", f"p{n}"))
        for n in range(50)
    ]

    seen = [0]

    def all_fifty() -> list[dict[str, Any]] | None:
        mine = [r for r in open_approvals(m) if r["paneID"] == agent.pane_id]
        seen[0] = len(mine)
        return mine if len(mine) == 50 else None

    try:
        listed = wait_until(all_fifty, 60, message="50 open requests")
    except AssertionError as exc:
        ended = [h.proc.poll() for h in hooks]
        raise AssertionError(f"{exc}; listed: {seen[0]}; hooks ended: {ended}") from exc
    assert "unexpected error" not in m.log()
    by_command = {r["action"]: r["id"] for r in listed}
    allow = [by_command[f"touch /w/{n}"] for n in range(0, 50, 2)]
    approved = mytty(m, "approve", "--all", *allow)
    assert approved.returncode == 0, approved.stderr
    denials = [
        subprocess.Popen(
            [MYTTY_CTL, "approval", "answer", by_command[f"touch /w/{n}"], "deny"],
            env=m.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for n in range(1, 50, 2)
    ]
    assert all(p.wait(60) == 0 for p in denials)
    for n, hook in enumerate(hooks):
        code, out, _err = hook.result(30)
        assert code == 0
        expected = ALLOW if n % 2 == 0 else ALLOW.replace(b'"allow"', b'"deny"')
        assert out == expected, (n, out)


def test_control_characters_and_60_kib_commands(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[{"action": "allow", "command": "echo *"}])
    agent = open_agent_pane(m)
    env = {**m.env, **pane_env_when_exec(m, agent.pane_id)}
    hostile = "printf '\x1b[2J\x1b]0;pwned\x07\x00\u202e'; echo done"
    hook = HookRun(m, env, "claude-code", claude_payload(str(m.home), hostile, "c1"))
    request = wait_for_request(m, agent.pane_id, command=hostile)
    table = mytty(m, "approvals")
    assert table.returncode == 0 and "\x1b" not in table.stdout and "\\x1b" in table.stdout
    assert mytty(m, "approve", request["id"]).returncode == 0
    assert hook.result()[1] == ALLOW
    # 60 KiB: cut to fit the envelope, shown as cut, answered; no rule may read it.
    huge = "echo " + "A" * (60 * 1024)
    hook = HookRun(m, env, "claude-code", claude_payload(str(m.home), huge, "c2"))
    request = wait_for_request(m, agent.pane_id, truncated=True)
    assert len(request["command"]) < len(huge) and huge.startswith(request["command"])
    # The echo rule might match, but cannot read it: it asks instead of allowing.
    assert request["state"] == "holding" and request["rule"] == "#1"
    refused = mytty(m, "approve", request["id"], "--always", "--yes")
    assert refused.returncode == 1 and "approval-rule-unavailable" in refused.stderr
    assert mytty(m, "deny", request["id"]).returncode == 0
    assert hook.result()[1] == ALLOW.replace(b'"allow"', b'"deny"')


def test_always_writes_the_rule_and_the_next_request_is_decided_by_it(team: Mytty) -> None:
    m = team
    set_approvals(m, hold=HOLD, rules=[])
    target = m.home / "always_target"
    job = worker(m, "claude", target)
    request = wait_for_request(m, pane_of(job))
    before = (m.mytty_home / "config.toml").read_text()
    done = mytty(m, "approve", request["id"], "--always", "--yes")
    assert done.returncode == 0, done.stderr
    assert "[[approvals.rule]]" in done.stdout
    after = (m.mytty_home / "config.toml").read_text()
    edits = SequenceMatcher(None, before.splitlines(), after.splitlines()).get_opcodes()
    assert {op for op, *_ in edits} == {"equal", "insert"}  # every line and comment kept
    assert f'command = "touch {target}"' in after
    assert completed(m, job, 30)["state"] == "succeeded"
    wait_until(lambda: "reloaded" in m.log(), 10)
    again = worker(m, "claude", target)  # the same command: the rule allows it at once
    assert completed(m, again, 30)["state"] == "succeeded"
    entries = json.loads(mytty(m, "approvals", "log", "--json").stdout)
    assert entries[0]["decidedBy"] == f"rule:always {request['id'][:8]}"
    assert agent_wait(m, again, "completed", 1)["job"]["state"] == "succeeded"
