"""The notification router against the fake tmux and a real hub (SQLite in a temp dir).

Covers what the policy module can't: the focus check asks tmux, the channels reach tmux, the
user command gets the JSON on stdin and is killed at its timeout without stalling the loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mytty.core.config import DEFAULTS, NotifySettings
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, TmuxPaneId
from mytty.daemon.agents import AgentHub
from mytty.daemon.notifier import Notifier, osc_sequence
from mytty.daemon.panes.identity import PaneRegistry
from mytty.daemon.store import EventStore
from mytty.tmux.fake import FakeTmux
from mytty.tmux.port import passthrough

K = AgentEventKind
QUIET = replace(DEFAULTS.notify, cooldown=0.0, channels=("message", "bell", "osc"))


def new_id() -> str:
    return str(uuid.uuid4()).upper()


@dataclass
class World:
    hub: AgentHub
    fake: FakeTmux
    panes: PaneRegistry
    notifier: Notifier
    agent: SurfaceId  # the agent's pane (%1, in window 1 of "work")
    shell: SurfaceId  # another pane (%2, the human's focus unless a test moves it)
    human: str

    async def event(
        self,
        kind: AgentEventKind,
        *,
        pane: SurfaceId | None = None,
        run: str | None = None,
        at: float | None = None,
        event_id: str | None = None,
        message: str | None = None,
    ) -> AgentEvent:
        event = AgentEvent(
            id=event_id or new_id(),
            run_id=RunId(run or new_id()),
            surface_id=pane or self.agent,
            provider=AgentProvider.CODEX,
            kind=kind,
            occurred_at=time.time() if at is None else at,
            message=message,
        )
        await self.hub.ingest(event)
        await self.notifier.wait_idle()
        return event

    async def needs_approval(self, **kw: Any) -> str:
        run = new_id()
        await self.event(K.STARTED, run=run, **kw)
        await self.event(K.APPROVAL_REQUESTED, run=run, message="apply patch", **kw)
        return run

    def messages(self) -> list[str]:
        return self.fake.human(self.human).messages

    def focus(self, surface: SurfaceId) -> None:
        pane = self.fake.pane(self.panes.by_surface[surface].tmux_id)
        pane.window.session.active = pane.window
        pane.window.active = pane


def with_world(
    tmp_path: Path,
    scenario: Callable[[World], Coroutine[Any, Any, None]],
    settings: NotifySettings = QUIET,
    started: bool = True,
) -> None:
    async def main() -> None:
        store = EventStore(tmp_path / "events.sqlite3")
        store.open()
        store.start_writer(asyncio.get_running_loop())
        fake = FakeTmux()
        work = fake.add_session("work")
        assert work.active is not None and work.active.active is not None
        shell_tmux = work.active.active.pane_id
        agent_tmux, _ = await fake.new_window(
            "work", cwd=None, env={}, command="exec sleep 9", on_created=lambda *_: None
        )
        panes = PaneRegistry(b"k" * 32)
        agent, shell = PaneRegistry.new_surface_id(), PaneRegistry.new_surface_id()
        panes.register_created(agent, TmuxPaneId(agent_tmux), 0)
        panes.register_created(shell, TmuxPaneId(shell_tmux), 0)
        human = fake.attach_human("work")
        hub = AgentHub(store)
        notifier = Notifier(
            settings,
            hub=hub,
            panes=panes,
            label_for_pane=lambda _s: None,
            port=lambda: fake,
            now=time.time,
        )
        world = World(hub, fake, panes, notifier, agent, shell, human)
        world.focus(shell)
        if started:
            notifier.start()
        try:
            await asyncio.wait_for(scenario(world), 30)
        finally:
            await notifier.close()
            store.close()

    asyncio.run(main())


def test_an_approval_notifies_once_through_each_channel(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        await w.needs_approval()
        assert len(w.messages()) == 1
        assert "codex needs approval: apply patch" in w.messages()[0]
        agent_pane = w.fake.pane(w.panes.by_surface[w.agent].tmux_id)
        assert agent_pane.output == [b"\x07"]  # the bell rings in the agent's pane
        # The OSC goes to the pane the human looks at, wrapped for passthrough.
        shown = w.fake.pane(w.panes.by_surface[w.shell].tmux_id).output
        assert len(shown) == 1 and shown[0].startswith(b"\x1bPtmux;\x1b\x1b]9;mytty")
        [(_key, results)] = w.notifier.sent
        assert [r.channel for r in results] == ["bell", "osc", "message"]
        assert all(r.status == "sent" for r in results)

    with_world(tmp_path, scenario)


def test_a_redelivered_event_does_not_notify_again(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        run = new_id()
        await w.event(K.STARTED, run=run)
        approval = await w.event(K.APPROVAL_REQUESTED, run=run)
        await w.event(K.APPROVAL_REQUESTED, run=run, event_id=approval.id)
        assert len(w.notifier.sent) == 1
        # The next transition of the same run is new: it notifies.
        await w.event(K.RUNNING, run=run)
        await w.event(K.INPUT_REQUESTED, run=run)
        assert len(w.notifier.sent) == 2 and len(w.messages()) == 2

    with_world(tmp_path, scenario)


def test_nothing_for_the_pane_the_human_looks_at(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        w.focus(w.agent)
        await w.needs_approval()
        assert w.notifier.sent == [] and w.messages() == []
        w.focus(w.shell)
        await w.needs_approval()
        assert len(w.notifier.sent) == 1

    with_world(tmp_path, scenario)


def test_nothing_from_before_the_start_or_before_listening(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        await w.needs_approval()  # before start(): the startup sweep's time
        assert w.notifier.sent == []
        w.notifier.start()
        await w.needs_approval(at=time.time() - 3600)  # a late delivery of an old event
        assert w.notifier.sent == []
        await w.needs_approval()
        assert len(w.notifier.sent) == 1

    with_world(tmp_path, scenario, started=False)


def test_a_pane_is_quiet_for_its_cooldown(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        await w.needs_approval()
        await w.needs_approval()
        assert len(w.notifier.sent) == 1
        other = PaneRegistry.new_surface_id()
        w.panes.register_created(other, TmuxPaneId("%99"), 0)
        await w.needs_approval(pane=other)
        assert len(w.notifier.sent) == 2  # another pane has its own cooldown

    with_world(tmp_path, scenario, replace(QUIET, cooldown=3600.0))


def test_the_user_command_gets_the_item_as_json(tmp_path: Path) -> None:
    out = tmp_path / "got.json"
    script = f"import sys; open({str(out)!r}, 'w').write(sys.stdin.read())"
    settings = replace(QUIET, channels=("command",), command=(sys.executable, "-c", script))

    async def scenario(w: World) -> None:
        run = await w.needs_approval()
        got = json.loads(out.read_text())
        assert got["type"] == "notification" and got["kind"] == "approval"
        assert (got["paneID"], got["runID"], got["provider"]) == (w.agent, run, "codex")
        assert got["message"] == "apply patch" and got["test"] is False
        assert got["location"] is None  # the fake's panes carry no row here
        assert w.notifier.sent[0][1][0].status == "sent"

    with_world(tmp_path, scenario, settings)


def test_a_hanging_command_is_killed_and_the_loop_keeps_going(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    # The shell starts a child that would outlive it: the whole group must die.
    command = f"sleep 600 & echo $! > {pid_file}; wait"
    settings = replace(QUIET, channels=("command",), command=command, timeout=0.5)

    async def scenario(w: World) -> None:
        run = new_id()
        await w.hub.ingest(
            AgentEvent(new_id(), RunId(run), w.agent, AgentProvider.CODEX, K.STARTED, time.time())
        )
        await w.hub.ingest(
            AgentEvent(new_id(), RunId(run), w.agent, AgentProvider.CODEX, K.FAILED, time.time())
        )
        # While the command hangs, the hub goes on ingesting and answering.
        other = await w.hub.ingest(
            AgentEvent(
                new_id(), RunId(new_id()), w.shell, AgentProvider.CODEX, K.STARTED, time.time()
            )
        )
        assert other and w.notifier.sent == []
        await w.notifier.wait_idle()
        [(_key, [result])] = w.notifier.sent
        assert result.status == "failed" and "killed after 0.5 s" in result.detail
        child = int(pid_file.read_text())
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{child}") and _state(child) != "Z":
            assert time.monotonic() < deadline, "the command's child survived the timeout"
            await asyncio.sleep(0.02)

    with_world(tmp_path, scenario, settings)


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def test_a_failing_command_is_reported_with_its_stderr(tmp_path: Path) -> None:
    settings = replace(QUIET, channels=("command",), command="echo no route to ntfy >&2; exit 3")

    async def scenario(w: World) -> None:
        await w.needs_approval()
        [(_key, [result])] = w.notifier.sent
        assert (result.status, result.detail) == ("failed", "exited 3: no route to ntfy")

    with_world(tmp_path, scenario, settings)


def test_no_client_means_display_and_osc_are_skipped(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        w.fake.humans.clear()
        await w.needs_approval()
        [(_key, results)] = w.notifier.sent
        assert {r.channel: r.status for r in results} == {
            "bell": "sent",
            "osc": "skipped",
            "message": "skipped",
        }

    with_world(tmp_path, scenario)


def test_osc_777_and_control_characters() -> None:
    seq = osc_sequence(777, "mytty: a;b", "line\x1b]one\x07\nend")
    assert seq == b"\x1b]777;notify;mytty: a,b;line ]one  end\x07"
    assert passthrough(b"\x1b]9;x\x07") == b"\x1bPtmux;\x1b\x1b]9;x\x07\x1b\\"


def test_a_launch_failure_notifies_as_a_failure(tmp_path: Path) -> None:
    from mytty.core.attention.items import AttentionItem, AttentionKind
    from mytty.core.ids import JobId

    async def scenario(w: World) -> None:
        job = JobId(new_id())
        item = w.hub.attention.add_launch_failure(
            job, w.agent, AgentProvider.CLAUDE_CODE, "claude never started", time.time()
        )
        assert item is not None and item.kind is AttentionKind.LAUNCH_FAILURE
        w.notifier.observe_item(item)
        w.notifier.observe_item(item)  # the same item again: no second notification
        budget = AttentionItem(
            new_id(),
            w.agent,
            RunId(job),
            AgentProvider.CODEX,
            AttentionKind.BUDGET,
            "80 %",
            time.time(),
        )
        w.notifier.observe_item(budget)  # kinds the router has no channel for: nothing
        await w.notifier.wait_idle()
        assert len(w.notifier.sent) == 1
        assert "claude-code failed: claude never started" in w.messages()[0]

    with_world(tmp_path, scenario)
