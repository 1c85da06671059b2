"""Issue 21's acceptance on the real CLIs: a worker's Bash request answered through mytty.

For each of Claude Code 2.1.332 and Codex 0.171.0: allowed from ``mytty approve`` within the
hold (the command ran), denied with a message (the model saw it, nothing ran), decided by a
rule (no hold at all), answered by its lead through ``mytty-ctl approval answer`` (the lead is
a real agent of the same provider, whose own request is allowed by a rule), and answered after
the hold in the agent's own dialog (keys, once the screen shows that request).

A Claude worker under the default access (``acceptEdits``) asks before a writing Bash command;
a Codex worker inherits a lead's ``-a on-request`` and asks before an escalated one. The mock
model has one script for every request of its API, so each turn is scripted just before its
prompt (the lead's once the worker's request is waiting). To keep the tier short, one worker
per provider takes the four answers as four turns of one session (an agent's start is most of
a test's time); the lead's is a test of its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.approvals_support import mytty, set_approvals, wait_for_request
from tests.e2e.jobs_support import completed, pane_of
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until

DENY_MESSAGE = "MYTTY-DENY: use the fixture in tests/data instead"
#: The hold of these tests: long enough to answer, short enough to wait out.
HOLD = 20.0
SHORT_HOLD = 3.0
#: The lead's command: Codex runs commands in a login shell, which resets PATH (research
#: §2.2), so the lead names mytty-ctl by the pane's $MYTTY_CTL_BIN.
LEAD_COMMAND = '"$MYTTY_CTL_BIN" approval answer {id} allow'
LEAD_RULE = {
    "name": "leads answer",
    "action": "allow",
    "command": '"$MYTTY_CTL_BIN" approval answer *',
}


def _writing(target: Path) -> str:
    """A command that needs approval (not read-only, not allowed by acceptEdits alone)."""
    return f"python3 -c \"open('{target}', 'w').write('ok')\""


class Worker:
    """One real worker of ``provider`` whose Bash request is waiting (``request``)."""

    def __init__(
        self, user: RealUser, provider: str, name: str, *extra: str, lead: str | None = None
    ) -> None:
        self.user = user
        self.provider = provider
        self.target = user.work / name
        api = user.anthropic if provider == "claude" else user.openai
        api.script(Turn.shell(_writing(self.target), escalate=provider == "codex"))
        args = ["--label", f"approvals-{name}", *extra]
        if provider == "codex":
            self.lead = lead or _codex_lead(user)
            args += ["--access", "inherit", "--anchor", self.lead]
        elif lead is not None:
            self.lead = lead
            args += ["--anchor", lead]
        self.job = user.spawn(provider, "Write the file.", *args)
        self.pane = pane_of(self.job)
        self.request: dict[str, Any] = {}

    def waiting(self, timeout: float = 90) -> dict[str, Any]:
        self.request = wait_for_request(self.user.m, self.pane, timeout)
        assert self.request["tool"] == "Bash" and str(self.target) in self.request["action"]
        assert not self.target.exists()
        return self.request

    def done(self) -> dict[str, Any]:
        return completed(self.user.m, self.job, 90)

    def logged(self) -> dict[str, Any]:
        done = mytty(self.user.m, "approvals", "log", "--json")
        assert done.returncode == 0, done.stderr
        entries = {e["id"]: e for e in json.loads(done.stdout)}
        return entries[self.request["id"]]

    def model_saw(self, needle: str) -> bool:
        api = "anthropic" if self.provider == "claude" else "openai"
        return bool(self.user.requests_with(api, needle))


def _codex_lead(user: RealUser) -> str:
    lead = user.m.ctl("new-tab", "--cwd", str(user.work), "--command", "codex -a on-request").json[
        "paneID"
    ]
    user.wait_screen(lead, "OpenAI Codex")
    return lead


def _claude_lead(user: RealUser) -> str:
    """A Claude lead in acceptEdits mode (its workers inherit it, and still ask for Bash)."""
    command = "claude --permission-mode acceptEdits"
    lead = user.m.ctl("new-tab", "--cwd", str(user.work), "--command", command).json["paneID"]
    user.wait_screen(lead, "accept edits on")
    return lead


def _ready(
    user: RealUser, provider: str, *, hold: float = HOLD, rules: list[dict[str, str]] | None = None
) -> None:
    user.enable(provider)
    set_approvals(user.m, hold=hold, rules=rules or [])


@pytest.fixture(params=["claude", "codex"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _next_turn(user: RealUser, worker: Worker, name: str, *, first: bool = False) -> None:
    """Script the worker's next Bash request (writing ``name``) and, after the first, type its
    prompt once the previous turn is over."""
    worker.target = user.work / name
    api = user.anthropic if worker.provider == "claude" else user.openai
    api.script(Turn.shell(_writing(worker.target), escalate=worker.provider == "codex"))
    if not first:
        user.type_prompt(worker.pane, f"Write the file {name}.")


def _turn_over(user: RealUser, worker: Worker) -> None:
    idle = user.m.ctl("wait", worker.pane, "--until", "idle", "--timeout-seconds", "60").json
    assert idle["timedOut"] is False and idle["state"] == "succeeded", idle


def test_a_workers_requests_answered_four_ways(user: RealUser, provider: str) -> None:
    _ready(user, provider)
    worker = Worker(user, provider, "allowed_file")

    # 1. Allowed from `mytty approve` within the hold: the command ran, through the hook.
    request = worker.waiting()
    assert request["state"] == "holding" and request["holdLeftSeconds"] > 0
    answered = mytty(user.m, "approve", request["id"][:8])
    assert answered.returncode == 0 and "through its hook" in answered.stderr, answered.stderr
    assert worker.done()["state"] == "succeeded"
    wait_until(worker.target.exists, 10, message=f"{worker.target} to be written")
    entry = worker.logged()
    assert (entry["decision"], entry["decidedBy"], entry["deliveredBy"]) == (
        "allow",
        "human:tty",
        "hook",
    ), entry

    # 2. Denied with a message within the hold: the model reads it, nothing ran, it goes on.
    _next_turn(user, worker, "denied_file")
    request = worker.waiting()
    answered = mytty(user.m, "deny", request["id"][:8], "--message", DENY_MESSAGE)
    assert answered.returncode == 0, answered.stderr
    wait_until(lambda: worker.model_saw(DENY_MESSAGE), 30, message="the message at the model")
    _turn_over(user, worker)
    assert not worker.target.exists(), "nothing ran"
    assert worker.logged()["message"] == DENY_MESSAGE

    # 3. Decided by a rule at once: no hold, no request to answer, no attention item.
    set_approvals(
        user.m,
        rules=[{"name": "fixture writes", "action": "allow", "command": "python3 -c *rule_file*"}],
    )
    _next_turn(user, worker, "rule_file")
    wait_until(worker.target.exists, 60, message=f"{worker.target} to be written")
    _turn_over(user, worker)
    done = mytty(user.m, "approvals", "log", "--json")
    [entry] = [e for e in json.loads(done.stdout) if str(worker.target) in e["action"]]
    assert entry["decidedBy"] == "rule:fixture writes" and entry["deliveredBy"] == "rule", entry
    assert entry["latencyMs"] < 1000 and entry["holdUntil"] is None, entry
    items = user.m.request({"type": "attention"})["items"]
    assert not [
        i
        for i in items
        if i["paneID"] == worker.pane and i["kind"] == "approval-request" and not i["resolvedAt"]
    ]

    # 4. After a short hold, in the agent's own dialog: typed once the screen shows it.
    set_approvals(user.m, hold=SHORT_HOLD, rules=[])
    _next_turn(user, worker, "dialog_file")
    request = worker.waiting()
    question = "Do you want to proceed?" if provider == "claude" else "Would you like to run"
    user.wait_screen(worker.pane, question)
    wait_for_request(user.m, worker.pane, 30, id=request["id"], state="dialog")
    answered = mytty(user.m, "approve", request["id"][:8])
    assert answered.returncode == 0 and "in its dialog" in answered.stderr, answered.stderr
    wait_until(worker.target.exists, 30, message=f"{worker.target} to be written")
    _turn_over(user, worker)
    entry = worker.logged()
    assert (entry["deliveredBy"], entry["decidedBy"]) == ("dialog", "human:tty"), entry
    user.assert_no_leaks(provider)


def test_answered_by_its_lead_through_mytty_ctl(user: RealUser, provider: str) -> None:
    """The lead is a real agent (the same provider: a Codex worker can only get its approval
    policy from a Codex lead); its own Bash request to answer is allowed by a rule."""
    _ready(user, provider, rules=[LEAD_RULE])
    lead = _codex_lead(user) if provider == "codex" else _claude_lead(user)
    worker = Worker(user, provider, "lead_file", "--approver", "lead", lead=lead)
    request = worker.waiting()
    assert request["approver"] == "lead"
    api = user.anthropic if provider == "claude" else user.openai
    command = LEAD_COMMAND.format(id=request["id"])
    api.script(Turn.shell(command, escalate=provider == "codex"))
    user.type_prompt(lead, "Answer your worker's permission request.")
    assert worker.done()["state"] == "succeeded"
    wait_until(worker.target.exists, 10, message=f"{worker.target} to be written")
    entry = worker.logged()
    assert entry["decision"] == "allow" and entry["decidedBy"].startswith("lead:"), entry
    user.assert_no_leaks(provider)
