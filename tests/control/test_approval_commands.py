"""The approval commands and the broker behind them, against the fake port (no tmux, no
controller process): the hold, first decision wins, who may answer, dialogs after the hold,
rules, the audit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from mytty.core.approvals.access import AGENT, Caller
from mytty.core.approvals.model import Action
from mytty.core.approvals.rules import Rule, RuleSet
from mytty.core.config import ApprovalSettings
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import JobId, SurfaceId
from mytty.daemon.server.sockets import HeldReply
from mytty.protocol.envelope import ApprovalAsk
from tests.control.conftest import event, failure, run, uuid
from tests.control.fakes import FakeController, FakePane

K = AgentEventKind
COMMAND = "touch /w/f"
CLAUDE_DIALOG = [
    " Bash command",
    " Create the file",
    " ╌╌╌╌",
    f" {COMMAND}",
    " ╌╌╌╌",
    " Do you want to proceed?",
    " \u276f 1. Yes",
    "   2. Yes, and always allow access to /w from this project",
    "   3. Yes, and switch to auto mode",
    "   4. No",
    "",
    " Esc to cancel · Tab to amend",
]
CODEX_DIALOG = [
    "  Would you like to run the following command?",
    "",
    f"  $ {COMMAND}",
    "",
    "\u203a 1. Yes, proceed (y)",
    f"  2. Yes, and don't ask again for commands that start with `{COMMAND}` (p)",
    "  3. No, and tell Codex what to do differently (esc)",
]


class Asking:
    """One PermissionRequest of ``pane`` as the event socket hands it to the broker."""

    def __init__(
        self,
        c: FakeController,
        pane: SurfaceId,
        command: str = COMMAND,
        *,
        provider: AgentProvider = AgentProvider.CLAUDE_CODE,
        run: str | None = None,
        truncated: bool = False,
    ) -> None:
        self.c = c
        started = event(pane, K.STARTED, run=run, provider=provider)
        c.hub.ingest(started)
        self.run = started.run_id
        self.event: AgentEvent = event(pane, K.APPROVAL_REQUESTED, run=self.run, provider=provider)
        self.ask = ApprovalAsk(Action("Bash", command=command, truncated=truncated), "/w")
        self.reply: bytes | HeldReply | None = None
        self.rest: asyncio.Task[bytes | None] | None = None

    async def send(self) -> dict[str, Any]:
        """The first reply line (the held rest starts waiting, as the server would)."""
        self.reply = await self.c.approvals.request(self.event, self.ask)
        first = self.reply.first if isinstance(self.reply, HeldReply) else self.reply
        if isinstance(self.reply, HeldReply):
            self.rest = asyncio.ensure_future(self.reply.rest())
            await asyncio.sleep(0)  # it is waiting now
        decoded: dict[str, Any] = json.loads(first)
        return decoded

    async def decision(self) -> dict[str, Any]:
        assert self.rest is not None
        line = await asyncio.wait_for(self.rest, 5)
        assert line is not None
        decoded: dict[str, Any] = json.loads(line)
        return decoded


def listed(reply: dict[str, Any]) -> list[dict[str, Any]]:
    assert reply["type"] == "approvals", reply
    entries: list[dict[str, Any]] = reply["approvals"]
    return entries


def answer(request_id: str, decision: str, **fields: Any) -> dict[str, Any]:
    return {"type": "answerApproval", "id": request_id, "decision": decision, **fields}


def item_of(c: FakeController, run: str) -> Any:
    (item,) = [i for i in c.hub.attention.items(c.clock()) if i.run_id == run]
    return item


# -- within the hold ------------------------------------------------------------------------


def test_a_held_request_is_listed_and_allowed_through_its_hook() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        first = await asking.send()
        assert first["ok"] is True and first["inserted"] is True
        held = first["approval"]
        assert held["holdSeconds"] == 15.0 and "decision" not in held
        (entry,) = listed(await c.request({"type": "listApprovals"}))
        assert entry["id"] == held["id"] and entry["state"] == "holding"
        assert (entry["paneID"], entry["tool"], entry["action"]) == (
            pane.surface_id,
            "Bash",
            COMMAND,
        )
        assert entry["holdLeftSeconds"] == 15.0 and entry["approver"] == "human"
        assert item_of(c, asking.run).actionable  # the attention item is there meanwhile
        reply = await c.request(answer(held["id"][:6].lower(), "allow"))
        assert reply["approval"]["decision"] == "allow"
        assert reply["approval"]["decidedBy"] == "human:tty"
        assert reply["approval"]["deliveredBy"] == "hook" and reply["rule"] is None
        assert await asking.decision() == {"decision": "allow"}
        assert not item_of(c, asking.run).actionable  # resolved by the decision
        assert listed(await c.request({"type": "listApprovals"})) == []

    run(scenario)


def test_a_deny_message_goes_to_the_hook_in_one_line() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        held = (await asking.send())["approval"]
        message = "use\nthe fixture"
        await c.request(answer(held["id"], "deny", message=message, via="web", session="phone"))
        assert await asking.decision() == {"decision": "deny", "message": "use the fixture"}
        (entry,) = (await c.request({"type": "approvalLog"}))["entries"]
        assert (entry["decidedBy"], entry["session"]) == ("human:web", "phone")

    run(scenario)


def test_the_first_decision_wins() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        held = (await asking.send())["approval"]
        await c.request(answer(held["id"], "deny"))
        late = await c.request(answer(held["id"], "allow"))
        assert failure(late) == "approval-already-answered"
        assert "denied" in late["message"] or "deny" in late["message"]
        assert await asking.decision() == {"decision": "deny"}

    run(scenario)


@pytest.mark.parametrize(
    ("text", "why"),
    [("FFFFFFFF", "names no request"), ("", "names no request"), ("*", "names no request")],
)
def test_an_unknown_or_empty_id_names_nothing(text: str, why: str) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        await Asking(c, pane.surface_id).send()
        reply = await c.request(answer(text, "allow"))
        assert failure(reply) == "approval-not-found" and why in reply["message"]

    run(scenario)


def test_a_shared_prefix_names_nothing() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        ids: list[str] = []
        while True:  # two requests whose ids share their first character
            ids.append(
                (await Asking(c, pane.surface_id, f"touch /w/{len(ids)}").send())["approval"]["id"]
            )
            shared = [i for i in ids if i[0] == ids[-1][0]]
            if len(shared) > 1:
                break
        reply = await c.request(answer(shared[0][0], "allow"))
        assert failure(reply) == "approval-not-found" and "give more of it" in reply["message"]

    run(scenario)


def test_a_bad_answer_is_invalid() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        held = (await Asking(c, pane.surface_id).send())["approval"]
        assert failure(await c.request(answer(held["id"], "maybe"))) == "invalid-request"
        assert (
            failure(await c.request(answer(held["id"], "allow", message="x"))) == "invalid-request"
        )
        too_long = answer(held["id"], "deny", message="x" * 2001)
        assert failure(await c.request(too_long)) == "invalid-request"
        assert (
            failure(await c.request(answer(held["id"], "allow", via="phone"))) == "invalid-request"
        )

    run(scenario)


# -- who may answer --------------------------------------------------------------------------


async def _worker(c: FakeController, lead: FakePane, approver: str) -> SurfaceId:
    """A worker spawned from ``lead``'s pane with ``--approver``; its pane."""
    c.callers[77] = lead.surface_id
    reply = await c.request(
        {
            "type": "spawnAgent",
            "provider": "claude",
            "task": "t",
            "anchorPaneID": lead.surface_id,
            "direction": "right",
            "approver": approver,
        },
        peer_pid=77,
    )
    assert reply["type"] == "agentJob", reply
    return SurfaceId(reply["job"]["paneID"]["rawValue"])


def test_a_lead_answers_only_its_own_workers_spawned_with_approver_lead() -> None:
    async def scenario(c: FakeController, lead: FakePane) -> None:
        worker = await _worker(c, lead, "lead")
        asking = Asking(c, worker)
        held = (await asking.send())["approval"]
        c.approval_callers[10] = Caller(AGENT, lead.surface_id, JobId("LEAD-JOB"))
        (entry,) = listed(await c.request({"type": "listApprovals"}, peer_pid=10))
        assert entry["approver"] == "lead" and entry["jobID"] is not None
        # Another agent sees nothing and may not answer; the worker may not answer itself.
        c.approval_callers[11] = Caller(AGENT, SurfaceId(uuid()))
        assert listed(await c.request({"type": "listApprovals"}, peer_pid=11)) == []
        reply = await c.request(answer(held["id"], "allow"), peer_pid=11)
        assert failure(reply) == "approval-not-yours" and "did not spawn" in reply["message"]
        c.approval_callers[12] = Caller(AGENT, worker)
        reply = await c.request(answer(held["id"], "allow"), peer_pid=12)
        assert failure(reply) == "approval-not-yours" and "own" in reply["message"]
        done = await c.request(answer(held["id"], "allow"), peer_pid=10)
        assert done["approval"]["decidedBy"] == "lead:LEAD-JOB"
        assert await asking.decision() == {"decision": "allow"}

    run(scenario)


def test_a_lead_may_not_answer_a_worker_spawned_for_people() -> None:
    async def scenario(c: FakeController, lead: FakePane) -> None:
        worker = await _worker(c, lead, "human")
        held = (await Asking(c, worker).send())["approval"]
        c.approval_callers[10] = Caller(AGENT, lead.surface_id)
        (entry,) = listed(await c.request({"type": "listApprovals"}, peer_pid=10))
        assert entry["approver"] == "human"
        reply = await c.request(answer(held["id"], "allow"), peer_pid=10)
        assert failure(reply) == "approval-not-yours" and "--approver lead" in reply["message"]
        assert (await c.request(answer(held["id"], "allow")))["approval"]["decision"] == "allow"

    run(scenario)


def test_a_lead_never_answers_its_own_request() -> None:
    async def scenario(c: FakeController, lead: FakePane) -> None:
        held = (await Asking(c, lead.surface_id).send())["approval"]
        c.approval_callers[10] = Caller(AGENT, lead.surface_id)
        assert (
            failure(await c.request(answer(held["id"], "allow"), peer_pid=10))
            == "approval-not-yours"
        )

    run(scenario)


# -- rules and the hold's settings -----------------------------------------------------------


def test_a_rule_decides_at_once_and_nothing_waits() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(
            rule=RuleSet(
                (Rule("no-rm", "deny", command="rm *"), Rule("touch", "allow", command="touch *"))
            )
        )
        asking = Asking(c, pane.surface_id)
        first = await asking.send()
        assert isinstance(asking.reply, bytes)  # nothing held
        assert first["inserted"] is False and first["approval"]["decision"] == "allow"
        denied = Asking(c, pane.surface_id, "rm -rf /w")
        held = (await denied.send())["approval"]
        assert held["decision"] == "deny" and "no-rm" in held["message"]
        assert [i for i in c.hub.attention.items(c.clock()) if i.kind == "approval-request"] == []
        entries = (await c.request({"type": "approvalLog"}))["entries"]
        assert {(e["decidedBy"], e["deliveredBy"]) for e in entries} == {
            ("rule:touch", "rule"),
            ("rule:no-rm", "rule"),
        }

    run(scenario)


def test_hold_zero_never_holds_but_rules_still_decide() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(
            hold_seconds=0.0, rule=RuleSet((Rule("t", "allow", command="ls"),))
        )
        asking = Asking(c, pane.surface_id)
        first = await asking.send()
        assert isinstance(asking.reply, bytes) and first["approval"]["holdSeconds"] == 0
        (entry,) = listed(await c.request({"type": "listApprovals"}))
        assert entry["state"] == "dialog" and entry["holdUntil"] is None
        ruled = await Asking(c, pane.surface_id, "ls").send()
        assert ruled["approval"]["decision"] == "allow"

    run(scenario)


def test_the_hold_is_cut_to_what_the_installed_hook_allows() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approvals._hook_timeout = lambda provider: 5.0  # an install from before the broker
        held = (await Asking(c, pane.surface_id).send())["approval"]
        assert held["holdSeconds"] == 1.0

    run(scenario)


def test_the_hold_ends_with_no_decision_and_the_dialog_takes_over() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(hold_seconds=0.2)
        asking = Asking(c, pane.surface_id)
        await asking.send()
        assert await asking.decision() == {"decision": None}
        (entry,) = listed(await c.request({"type": "listApprovals"}))
        assert entry["state"] == "dialog" and entry["holdLeftSeconds"] is None

    run(scenario)


def test_a_retried_hook_gets_the_same_request() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        first = await asking.send()
        again = Asking(c, pane.surface_id)
        again.event, again.ask = asking.event, asking.ask
        retried = await again.send()
        assert retried["approval"]["id"] == first["approval"]["id"] and retried["inserted"] is False
        await c.request(answer(first["approval"]["id"], "allow"))
        assert await asking.decision() == await again.decision() == {"decision": "allow"}

    run(scenario)


# -- the agent moves on without mytty --------------------------------------------------------


@pytest.mark.parametrize(
    ("hook", "kind", "decision"),
    [("PostToolBatch", K.RUNNING, "allow"), ("Stop", K.SUCCEEDED, "deny"), ("x", K.IDLE, "deny")],
)
def test_an_answer_in_the_pane_ends_the_hold(
    hook: str, kind: AgentEventKind, decision: str
) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        held = (await asking.send())["approval"]
        from dataclasses import replace

        moved = replace(event(pane.surface_id, kind, run=asking.run), hook_name=hook)
        c.hub.ingest(moved)
        c.approvals.observe(moved, True)
        assert await asking.decision() == {"decision": None}  # the hook prints nothing
        (entry,) = (await c.request({"type": "approvalLog"}))["entries"]
        assert (entry["decidedBy"], entry["decision"], entry["deliveredBy"]) == (
            "agent-dialog",
            decision,
            "pane",
        )
        assert failure(await c.request(answer(held["id"], "allow"))) == "approval-already-answered"

    run(scenario)


@pytest.mark.parametrize("kind", [K.SUCCEEDED, K.FAILED])
def test_a_turn_that_ends_while_its_run_waits_for_approval_ends_the_run(
    kind: AgentEventKind,
) -> None:
    # Claude after a deny with a message (typed by mytty or the human): its turn goes on and
    # ends with a Stop, which a run still waiting for approval would ignore.
    from mytty.core.events import AgentRunState
    from mytty.core.ids import RunId

    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        await asking.send()
        c.hub.ingest(asking.event)

        def state() -> AgentRunState:
            found = c.hub.book.get(RunId(asking.run))
            assert found is not None
            return found.state

        assert state() is AgentRunState.WAITING_APPROVAL
        ended = event(pane.surface_id, kind, run=asking.run)
        await c.approvals.before_event(ended)
        c.hub.ingest(ended)
        assert state().value == kind.value
        await c.approvals.before_event(ended)  # the run no longer waits: nothing more
        assert state().value == kind.value

    run(scenario)


def test_only_a_turn_end_of_a_waiting_run_gets_a_decision_event_first() -> None:
    from dataclasses import replace

    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        await asking.send()
        c.hub.ingest(asking.event)
        seen = set(c.async_hub.seen)
        for moved in (
            event(pane.surface_id, K.RUNNING, run=asking.run),
            replace(event(pane.surface_id, K.SUCCEEDED, run=asking.run), hook_name="SubagentStop"),
            event(pane.surface_id, K.SUCCEEDED, run="another-run"),
        ):
            await c.approvals.before_event(moved)
        assert c.async_hub.seen == seen

    run(scenario)


def test_a_subagents_activity_is_not_an_answer() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        await asking.send()
        from dataclasses import replace

        for hook in ("SubagentStart", "SubagentStop", "UserPromptSubmit"):
            c.approvals.observe(
                replace(event(pane.surface_id, K.RUNNING, run=asking.run), hook_name=hook), True
            )
        (entry,) = listed(await c.request({"type": "listApprovals"}))
        assert entry["state"] == "holding"

    run(scenario)


def test_a_closed_pane_expires_its_requests() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        asking = Asking(c, pane.surface_id)
        held = (await asking.send())["approval"]
        c.approvals.pane_gone(pane.surface_id)
        assert await asking.decision() == {"decision": None}
        reply = await c.request(answer(held["id"], "allow"))
        assert failure(reply) == "approval-already-answered" and "expired" in reply["message"]

    run(scenario)


# -- after the hold: the agent's own dialog ---------------------------------------------------


def _dialog_then_gone(c: FakeController, pane: FakePane, lines: list[str]) -> list[tuple[str, str]]:
    """Draw ``lines`` in the pane; the first key sent makes the dialog go (the agent took it)."""
    tmux_pane = c.tmux.pane(pane.tmux_id)
    tmux_pane.lines = [*lines]
    real = c.tmux.send_key

    async def send_key(pane_id: str, key_name: str) -> None:
        await real(pane_id, key_name)
        tmux_pane.lines = ["STANDIN tool ran: 0"]

    c.tmux.send_key = send_key  # type: ignore[method-assign]
    return tmux_pane.sent


@pytest.mark.parametrize(
    ("provider", "lines", "decision", "keys"),
    [
        (AgentProvider.CLAUDE_CODE, CLAUDE_DIALOG, "allow", [("key", "1")]),
        (AgentProvider.CLAUDE_CODE, CLAUDE_DIALOG, "deny", [("key", "4")]),
        (AgentProvider.CODEX, CODEX_DIALOG, "allow", [("key", "y")]),
        (AgentProvider.CODEX, CODEX_DIALOG, "deny", [("key", "n")]),
    ],
)
def test_after_the_hold_the_answer_is_typed_into_that_dialog(
    provider: AgentProvider, lines: list[str], decision: str, keys: list[tuple[str, str]]
) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(hold_seconds=0.0)
        asking = Asking(c, pane.surface_id, provider=provider)
        held = (await asking.send())["approval"]
        sent = _dialog_then_gone(c, pane, lines)
        reply = await c.request(answer(held["id"], decision))
        assert reply["approval"]["deliveredBy"] == "dialog", reply
        assert sent == keys
        assert not item_of(c, asking.run).actionable

    run(scenario)


def test_nothing_is_typed_when_the_screen_does_not_show_that_request() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(hold_seconds=0.0)
        held = (await Asking(c, pane.surface_id, "touch /w/other").send())["approval"]
        sent = _dialog_then_gone(c, pane, CLAUDE_DIALOG)  # another command's dialog
        reply = await c.request(answer(held["id"], "allow"))
        assert failure(reply) == "approval-not-on-screen" and "stays open" in reply["message"]
        assert sent == []
        (entry,) = listed(await c.request({"type": "listApprovals"}))
        assert entry["state"] == "dialog"  # still open

    run(scenario)


def test_codexs_dialog_cannot_carry_a_deny_message() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(hold_seconds=0.0)
        held = (await Asking(c, pane.surface_id, provider=AgentProvider.CODEX).send())["approval"]
        sent = _dialog_then_gone(c, pane, CODEX_DIALOG)
        reply = await c.request(answer(held["id"], "deny", message="use the fixture"))
        assert failure(reply) == "approval-message-undeliverable"
        assert sent == [] and listed(await c.request({"type": "listApprovals"}))

    run(scenario)


def test_claudes_deny_message_goes_through_its_amend_field() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(hold_seconds=0.0)
        held = (await Asking(c, pane.surface_id).send())["approval"]
        tmux_pane = c.tmux.pane(pane.tmux_id)
        tmux_pane.lines = [*CLAUDE_DIALOG]
        real_key, real_text = c.tmux.send_key, c.tmux.send_text

        async def send_key(pane_id: str, key_name: str) -> None:  # the agent's dialog reacts
            await real_key(pane_id, key_name)
            if key_name == "Tab":
                tmux_pane.lines[9] = "   4. No, and tell Claude what to do differently"
            elif key_name == "Enter":
                tmux_pane.lines = ["rejected"]

        async def send_text(pane_id: str, text: str) -> None:
            await real_text(pane_id, text)
            tmux_pane.lines[9] = f"   4. No, {text}"

        c.tmux.send_key = send_key  # type: ignore[method-assign]
        c.tmux.send_text = send_text  # type: ignore[method-assign]
        reply = await c.request(answer(held["id"], "deny", message="use the fixture"))
        assert reply["approval"]["deliveredBy"] == "dialog", reply
        assert tmux_pane.sent == [
            ("key", "Down"),
            ("key", "Down"),
            ("key", "Down"),
            ("key", "Tab"),
            ("text", "use the fixture"),
            ("key", "Enter"),
        ]

    run(scenario)


def test_a_dialog_that_does_not_go_is_a_delivery_failure() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.approval_settings = ApprovalSettings(hold_seconds=0.0)
        held = (await Asking(c, pane.surface_id).send())["approval"]
        c.tmux.pane(pane.tmux_id).lines = [*CLAUDE_DIALOG]  # keys change nothing
        from mytty.daemon.approvals import delivery

        delivery.SETTLE_TIMEOUT_S = 0.2
        reply = await c.request(answer(held["id"], "allow"))
        assert failure(reply) == "approval-delivery-failed"
        (entry,) = listed(await c.request({"type": "listApprovals"}))
        assert entry["state"] == "dialog"

    try:
        run(scenario)
    finally:
        from mytty.daemon.approvals import delivery

        delivery.SETTLE_TIMEOUT_S = 5.0


# -- --always --------------------------------------------------------------------------------


def test_always_writes_the_narrowest_rule_then_allows(tmp_path: Path) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        config = tmp_path / "config.toml"
        config.write_text("# my settings\n[notify]\nosc = 9  # kept\n")
        c.approvals._config_file = config
        asking = Asking(c, pane.surface_id, "touch /w/[x]")
        held = (await asking.send())["approval"]
        proposed = await c.request({"type": "proposeApprovalRule", "id": held["id"]})
        assert proposed["rule"]["command"] == "touch /w/[[]x]" and proposed["configFile"] == str(
            config
        )
        c.approval_callers[10] = Caller(AGENT, SurfaceId(uuid()))
        refused = await c.request(answer(held["id"], "allow", always=True), peer_pid=10)
        assert failure(refused) == "approval-not-yours"
        done = await c.request(answer(held["id"], "allow", always=True))
        assert done["rule"] == proposed["rule"]
        text = config.read_text()
        assert text.startswith("# my settings\n[notify]\nosc = 9  # kept\n")
        assert proposed["toml"].strip() in text
        assert await asking.decision() == {"decision": "allow"}

    run(scenario)


def test_always_needs_a_request_a_rule_can_match_exactly() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        held = (await Asking(c, pane.surface_id, "x" * 10, truncated=True).send())["approval"]
        reply = await c.request({"type": "proposeApprovalRule", "id": held["id"]})
        assert failure(reply) == "approval-rule-unavailable"
        assert failure(await c.request(answer(held["id"], "allow", always=True))) == (
            "approval-rule-unavailable"
        )
        assert listed(await c.request({"type": "listApprovals"}))  # still open

    run(scenario)


# -- the audit ---------------------------------------------------------------------------------


def test_the_log_is_newest_first_and_an_agent_sees_its_workers_only() -> None:
    async def scenario(c: FakeController, lead: FakePane) -> None:
        worker = await _worker(c, lead, "lead")
        now = [1_000_000.0]
        c.clock = lambda: now[0]
        first = (await Asking(c, lead.surface_id, "touch /w/1").send())["approval"]
        now[0] += 10
        second = (await Asking(c, worker, "touch /w/2").send())["approval"]
        log = (await c.request({"type": "approvalLog"}))["entries"]
        assert [e["id"] for e in log] == [second["id"], first["id"]]
        recent = (await c.request({"type": "approvalLog", "sinceSeconds": 5}))["entries"]
        assert [e["id"] for e in recent] == [second["id"]]
        c.approval_callers[10] = Caller(AGENT, lead.surface_id)
        mine = (await c.request({"type": "approvalLog"}, peer_pid=10))["entries"]
        assert [e["id"] for e in mine] == [second["id"]]

    run(scenario)


# -- a restart ---------------------------------------------------------------------------------


def test_a_restart_keeps_a_waiting_request_for_its_dialog_and_expires_the_rest() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        waiting = Asking(c, pane.surface_id, "touch /w/1")
        await waiting.send()
        moved_on = Asking(c, pane.surface_id, "touch /w/2")
        await moved_on.send()
        c.hub.ingest(event(pane.surface_id, K.IDLE, run=moved_on.run, at=1_000_001.0))  # Esc
        stored = list(c.approval_store.rows.values())
        fresh = FakeController(tmux=c.tmux, clock=c.clock)
        fresh.panes = c.panes
        fresh.hub = c.hub
        fresh.approvals._panes = c.panes
        fresh.approvals._run_state = c.approvals._run_state
        fresh.approvals.load({}, stored)
        fresh.approvals.settle_restart()
        states = {r.action.command: r.state.value for r in fresh.approvals.book.all()}
        assert states == {"touch /w/1": "dialog", "touch /w/2": "expired"}

    run(scenario)
