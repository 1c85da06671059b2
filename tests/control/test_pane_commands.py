"""Pane commands against the fake port: validation order, error codes and what reaches tmux."""

from __future__ import annotations

import pytest

from mytty.core.events import AgentEventKind, AgentProvider
from tests.control.conftest import event, failure, run, uuid
from tests.control.fakes import FakeController, FakePane

K = AgentEventKind


def test_an_unknown_request_type_is_invalid() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        assert failure(await c.request({"type": "selfDestruct"})) == "invalid-request"

    run(scenario)


# -- send / send-key / read -----------------------------------------------------------------------


def test_send_types_text_then_enter_and_read_echoes_the_given_id() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        given = pane.surface_id.lower()  # ids are accepted in any case
        reply = await c.request(
            {"type": "send", "paneID": given, "text": "echo hi", "pressEnter": True}
        )
        assert reply == {"type": "ok"}
        assert c.tmux.pane(pane.tmux_id).sent == [("text", "echo hi"), ("key", "Enter")]
        read = await c.request({"type": "read", "paneID": given})
        assert read["type"] == "content"
        assert read["content"]["paneID"] == given
        assert read["content"]["text"] == "echo hi"
        assert (read["content"]["cursorRow"], read["content"]["cursorColumn"]) == (1, 0)

    run(scenario)


@pytest.mark.parametrize(
    ("request_fields", "code"),
    [
        ({"paneID": "00000000-0000-4000-8000-000000000000", "text": "x"}, "pane-not-found"),
        ({"paneID": "not-a-uuid", "text": "x"}, "pane-not-found"),
        ({"text": "x"}, "invalid-request"),
        ({"PANE": True}, "invalid-request"),
        ({"PANE": True, "text": 5}, "invalid-request"),
        ({"PANE": True, "text": "x", "pressEnter": "yes"}, "invalid-request"),
    ],
)
def test_send_refuses_bad_input(request_fields: dict[str, object], code: str) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        fields = dict(request_fields)
        if fields.pop("PANE", None):
            fields["paneID"] = pane.surface_id
        assert failure(await c.request({"type": "send", **fields})) == code
        assert c.tmux.pane(pane.tmux_id).sent == []

    run(scenario)


def test_send_while_tmux_is_down_is_tmux_unavailable() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.port_up = False
        reply = await c.request({"type": "send", "paneID": pane.surface_id, "text": "x"})
        assert failure(reply) == "tmux-unavailable"

    run(scenario)


def test_send_key_checks_the_key_before_the_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        bad_key = {"type": "sendKey", "paneID": uuid(), "key": "hyperspace"}
        assert failure(await c.request(bad_key)) == "invalid-key"
        missing = {"type": "sendKey", "paneID": uuid(), "key": "escape"}
        assert failure(await c.request(missing)) == "pane-not-found"
        ok = {"type": "sendKey", "paneID": pane.surface_id, "key": "c", "modifiers": ["control"]}
        assert await c.request(ok) == {"type": "ok"}
        assert c.tmux.pane(pane.tmux_id).sent == [("key", "C-c")]

    run(scenario)


def test_read_of_an_unknown_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        assert failure(await c.request({"type": "read", "paneID": uuid()})) == "pane-not-found"

    run(scenario)


# -- split / new-tab / close / focus ------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"direction": "diagonal"}, "invalid-request"),
        ({"workingDirectory": "relative/dir"}, "invalid-cwd"),
        ({"workingDirectory": "/no/such/dir/anywhere"}, "invalid-cwd"),
        ({"command": ""}, "invalid-command"),
    ],
)
def test_split_refuses_bad_input_before_creating_anything(
    fields: dict[str, object], code: str
) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        reply = await c.request({"type": "split", "paneID": pane.surface_id, **fields})
        assert failure(reply) == code
        assert c.created == [] and len(c.panes.panes()) == 1

    run(scenario)


def test_split_creates_a_listed_pane_in_the_given_direction() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        reply = await c.request(
            {"type": "split", "paneID": pane.surface_id, "direction": "down", "command": "ls"}
        )
        assert reply["type"] == "pane"
        (made,) = c.created
        assert made.surface_id == reply["paneID"]
        assert (made.split_from, made.direction, made.command) == (pane.surface_id, "down", "ls")
        assert made.cwd == "/tmp"  # the split pane's directory when none is given
        listed = await c.request({"type": "list"})
        assert [p["paneID"] for p in listed["panes"]] == [pane.surface_id, reply["paneID"]]

    run(scenario)


def test_new_tab_and_close_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        tab = await c.request({"type": "newTab", "workingDirectory": "/"})
        assert tab["type"] == "pane" and c.created[0].cwd == "/"
        assert await c.request({"type": "closePane", "paneID": tab["paneID"]}) == {"type": "ok"}
        assert c.panes.get(tab["paneID"]) is None
        again = await c.request({"type": "closePane", "paneID": tab["paneID"]})
        assert failure(again) == "pane-not-found"

    run(scenario)


def test_focus_selects_the_pane_and_its_window() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        other = await c.request({"type": "newTab"})
        target = c.panes.get(other["paneID"])
        assert target is not None and target.row is not None
        assert await c.request({"type": "focus", "paneID": other["paneID"]}) == {"type": "ok"}
        session = next(s for s in c.tmux.sessions if s.name == "mytty")
        assert session.active is not None and session.active.window_id == target.row.window_id
        assert failure(await c.request({"type": "focus", "paneID": uuid()})) == "pane-not-found"

    run(scenario)


# -- list / status ------------------------------------------------------------------------------


def test_list_shows_agent_keys_only_once_the_pane_had_an_event() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        (entry,) = (await c.request({"type": "list"}))["panes"]
        assert "provider" not in entry and "agentState" not in entry
        c.hub.ingest(event(pane.surface_id, K.STARTED, provider=AgentProvider.CODEX))
        (entry,) = (await c.request({"type": "list"}))["panes"]
        assert (entry["provider"], entry["agentState"]) == ("codex", "running")

    run(scenario)


@pytest.mark.parametrize("status", ["", "two\nlines", "x" * 101, "bell\a"])
def test_status_refuses_a_bad_note(status: str) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        reply = await c.request(
            {"type": "setPaneStatus", "paneID": pane.surface_id, "status": status}
        )
        assert failure(reply) == "invalid-status"

    run(scenario)


def test_status_sets_and_clears_the_note_list_shows() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        note = {"type": "setPaneStatus", "paneID": pane.surface_id, "status": "running tests"}
        assert await c.request(note) == {"type": "ok"}
        (entry,) = (await c.request({"type": "list"}))["panes"]
        assert entry["statusNote"] == "running tests"
        clear = {"type": "setPaneStatus", "paneID": pane.surface_id}
        assert await c.request(clear) == {"type": "ok"}
        (entry,) = (await c.request({"type": "list"}))["panes"]
        assert "statusNote" not in entry
        unknown = {"type": "setPaneStatus", "paneID": uuid(), "status": "x"}
        assert failure(await c.request(unknown)) == "pane-not-found"

    run(scenario)


# -- wait / events / env ------------------------------------------------------------------------


def test_wait_validates_until_and_times_out_with_no_state() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        bad = {"type": "wait", "paneID": pane.surface_id, "until": "done"}
        assert failure(await c.request(bad)) == "invalid-request"
        now = {"type": "wait", "paneID": pane.surface_id, "until": "idle", "timeoutSeconds": 0}
        assert await c.request(now) == {"type": "waitResult", "state": None, "timedOut": True}
        unknown = {"type": "wait", "paneID": uuid(), "until": "idle"}
        assert failure(await c.request(unknown)) == "pane-not-found"

    run(scenario)


def test_wait_resolves_on_the_event_that_satisfies_it() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        import asyncio

        run_id = uuid()
        c.hub.ingest(event(pane.surface_id, K.STARTED, run=run_id))
        request = {"type": "wait", "paneID": pane.surface_id, "until": "idle", "timeoutSeconds": 30}
        waiting = asyncio.ensure_future(c.request(request))
        await asyncio.sleep(0)
        assert not waiting.done()
        c.hub.ingest(event(pane.surface_id, K.SUCCEEDED, run=run_id, at=1_000_001.0))
        assert await waiting == {"type": "waitResult", "state": "succeeded", "timedOut": False}

    run(scenario)


def test_attention_wait_on_an_agent_without_hooks_fails_at_once() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.foreground[pane.surface_id] = AgentProvider.CODEX
        c.integrations.statuses[AgentProvider.CODEX] = "not-installed"
        request = {"type": "wait", "paneID": pane.surface_id, "until": "attention"}
        assert failure(await c.request(request)) == "provider-integration-not-installed"
        # idle never fails this way: native estimation covers it
        idle = {"type": "wait", "paneID": pane.surface_id, "until": "idle", "timeoutSeconds": 0}
        assert (await c.request(idle))["timedOut"] is True

    run(scenario)


def test_events_establishes_a_cursor_then_pages() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.hub.ingest(event(pane.surface_id, K.STARTED))
        tip = await c.request({"type": "events"})
        assert tip == {"type": "events", "records": [], "latestSequence": 1, "timedOut": False}
        page = await c.request({"type": "events", "afterSequence": 0, "timeoutSeconds": 0})
        assert [r["sequence"] for r in page["records"]] == [1]
        bad = {"type": "events", "afterSequence": -1}
        assert failure(await c.request(bad)) == "invalid-request"

    run(scenario)


def test_env_outside_any_pane_is_not_in_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        assert failure(await c.request({"type": "env"}, peer_pid=4321)) == "not-in-pane"
        c.callers[4321] = pane.surface_id
        reply = await c.request({"type": "env"}, peer_pid=4321)
        assert reply["paneID"] == pane.surface_id
        assert reply["environment"]["MYTTY_SURFACE_ID"] == pane.surface_id

    run(scenario)


# -- attention / integrations -----------------------------------------------------------------


def test_attention_lists_items_and_acknowledges_only_known_runs() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        run_id = uuid()
        c.hub.ingest(event(pane.surface_id, K.STARTED, run=run_id))
        c.hub.ingest(event(pane.surface_id, K.APPROVAL_REQUESTED, run=run_id, message="ok?"))
        (item,) = (await c.request({"type": "attention"}))["items"]
        assert (item["paneID"], item["runID"], item["kind"]) == (
            pane.surface_id,
            run_id,
            "approval-request",
        )
        assert item["message"] == "ok?" and item["resolvedAt"] is None
        typo = {"type": "attention", "acknowledge": [uuid()]}
        assert failure(await c.request(typo)) == "run-not-found"
        assert (await c.request({"type": "attention"}))["items"][0]["resolvedAt"] is None
        acked = await c.request({"type": "attention", "acknowledge": [run_id.lower()]})
        assert acked["items"][0]["resolvedAt"] is not None

    run(scenario)


def test_integration_commands() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        listed = await c.request({"type": "integrationList"})
        assert listed["type"] == "integrationStatuses"
        assert [i["provider"] for i in listed["integrations"]] == [
            "codex",
            "claude-code",
            "opencode",
            "antigravity",
            "cursor",
        ]
        bad = {"type": "integrationEnable", "provider": "vim"}
        assert failure(await c.request(bad)) == "invalid-provider"
        assert failure(await c.request({"type": "integrationEnable"})) == "invalid-request"
        installed = {"type": "integrationEnable", "provider": "codex"}
        assert (await c.request(installed))["type"] == "integrationStatuses"
        c.integrations.statuses[AgentProvider.CODEX] = "needs-repair"
        assert failure(await c.request(installed)) == "integration-declined"
        assert failure(await c.request({"type": "integrationRepair"})) == "integration-declined"

    run(scenario)
