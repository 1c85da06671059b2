"""The pane service against the in-memory tmux (FakeTmux): creating, adopting, closing panes.

The same behaviour runs against real tmux in the e2e suite; here it is fast and exact (what
environment a pane got, which option was written, what a launch file holds).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider
from mytty.core.ids import SurfaceId
from mytty.daemon.agents import AgentHub
from mytty.daemon.estimation.detect import NOTHING, AgentDetector, Detection
from mytty.daemon.home import Home
from mytty.daemon.panes.identity import PaneRegistry
from mytty.daemon.panes.service import PaneService
from mytty.daemon.store import EventStore
from mytty.tmux import bootstrap
from mytty.tmux.fake import FakeTmux
from mytty.tmux.port import SURFACE_OPTION, TmuxPort


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.tmux = FakeTmux()
        self.up = True
        self.home = Home(tmp_path / "home")
        self.home.ensure()
        self.store = EventStore(self.home.store)
        self.hub = AgentHub(self.store, clock=lambda: 1_700_000_000.0)
        self.panes = PaneRegistry(b"s" * 32)
        self.service = PaneService(
            home=self.home,
            ctl_bin="/opt/mytty/bin/mytty-ctl",
            panes=self.panes,
            hub=self.hub,
            require_port=self.require_port,
        )

    def require_port(self) -> TmuxPort:
        if not self.up:
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, "tmux is down (test)")
        return self.tmux


def run(tmp_path: Path, scenario: Callable[[World], Awaitable[None]]) -> None:
    async def main() -> None:
        world = World(tmp_path)
        world.store.open()
        world.store.start_writer(asyncio.get_running_loop())
        try:
            await world.service.tmux_connected(had_user_session=False)
            await scenario(world)
        finally:
            world.store.close()

    asyncio.run(main())


def test_connecting_makes_the_user_session_with_the_pane_environment(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        [pane] = [p for p in w.panes.panes() if p.row and p.row.session_name == "mytty"]
        fake = w.tmux.pane(pane.tmux_id)
        assert fake.options[SURFACE_OPTION] == pane.surface_id and pane.option_written
        env = fake.env
        assert env["MYTTY_SURFACE_ID"] == pane.surface_id
        assert env["MYTTY_EVENT_CAPABILITY"] == w.panes.capability(pane.surface_id)
        assert env["MYTTY_EVENT_SOCKET"] == str(w.home.event_socket)
        assert env["PATH"].split(":")[-1] == "/opt/mytty/bin"  # mytty-ctl stays reachable
        assert fake.command.startswith("exec /bin/sh ") and fake.command.endswith("mytty-shell'")
        # The session-wide environment got none of it (new_session respawns the pane instead).
        assert w.tmux.global_environment == {}
        assert await w.service.ensure_user_session() == bootstrap.USER_SESSION  # idempotent
        assert len([s for s in w.tmux.sessions if s.name == "mytty"]) == 1

    run(tmp_path, scenario)


def test_a_split_gets_its_own_identity_and_a_private_launch_file(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        [anchor] = w.panes.panes()
        pane = await w.service.create_pane(
            split_from=anchor, direction="down", cwd="/work", command="echo hi"
        )
        assert pane.surface_id != anchor.surface_id and pane.created_by_us
        assert pane.row is not None and pane.row.window_id == anchor.row.window_id  # type: ignore[union-attr]
        fake = w.tmux.pane(pane.tmux_id)
        assert fake.cwd == "/work" and fake.options[SURFACE_OPTION] == pane.surface_id
        launch = Path(fake.env["MYTTY_LAUNCH_FILE"])
        assert launch.read_text() == "echo hi" and launch.stat().st_mode & 0o777 == 0o600
        assert w.service.require_pane(pane.surface_id) is pane

    run(tmp_path, scenario)


def test_a_failed_split_leaves_no_launch_file(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        [anchor] = w.panes.panes()
        w.tmux.kill_server()  # every verb now fails
        with pytest.raises(MyttyError) as err:
            await w.service.create_pane(split_from=anchor, cwd=None, command="echo hi")
        assert err.value.code is ErrorCode.TMUX_UNAVAILABLE
        assert list(w.home.launch_dir.iterdir()) == []

    run(tmp_path, scenario)


def test_hand_made_panes_are_adopted_and_tagged(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        before = {p.surface_id for p in w.panes.panes()}
        w.tmux.add_session("work")  # a human's `tmux new -s work`
        await w.service.refresh_panes()
        [adopted] = [p for p in w.panes.panes() if p.surface_id not in before]
        assert adopted.row is not None and adopted.row.session_name == "work"
        assert not adopted.created_by_us
        assert w.tmux.pane(adopted.tmux_id).options[SURFACE_OPTION] == adopted.surface_id
        # The controller's private session is never a pane of mytty's.
        assert all(p.row and p.row.session_name != "_mytty" for p in w.panes.panes())

    run(tmp_path, scenario)


def test_closing_a_pane_forgets_it(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        [anchor] = w.panes.panes()
        pane = await w.service.create_pane(split_from=anchor, cwd=None, command=None)
        lock = w.service.pane_lock(pane.surface_id)
        await w.service.close_pane(pane)
        assert w.panes.get(pane.surface_id) is None
        assert w.service.pane_lock(pane.surface_id) is not lock  # its lock went with it
        with pytest.raises(MyttyError) as err:
            w.service.require_pane(pane.surface_id)
        assert err.value.code is ErrorCode.PANE_NOT_FOUND

    run(tmp_path, scenario)


def test_a_new_tab_goes_to_the_humans_session(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        assert await w.service.preferred_session() == "mytty"
        w.tmux.add_session("work")
        w.tmux.attach_human("work")
        assert await w.service.preferred_session() == "work"
        pane = await w.service.create_pane(session="work", cwd=None, command=None)
        assert pane.row is not None and pane.row.session_name == "work"

    run(tmp_path, scenario)


def test_without_tmux_every_pane_question_is_tmux_unavailable(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        [anchor] = w.panes.panes()
        w.up = False
        with pytest.raises(MyttyError) as err:
            w.service.require_pane(anchor.surface_id)
        assert err.value.code is ErrorCode.TMUX_UNAVAILABLE
        with pytest.raises(MyttyError) as refused:
            await w.service.refresh_panes()
        assert refused.value.code is ErrorCode.TMUX_UNAVAILABLE

    run(tmp_path, scenario)


class ScriptedDetector(AgentDetector):
    """Answers what the test says is in front, and counts the looks (each a /proc read)."""

    def __init__(self) -> None:
        super().__init__()
        self.answer = NOTHING
        self.looks = 0

    def detect(self, pane_pid: int) -> Detection:
        self.looks += 1
        return self.answer


def test_list_describes_panes_from_what_is_known_until_something_changes(tmp_path: Path) -> None:
    async def scenario(w: World) -> None:
        [pane] = w.panes.panes()
        detector = ScriptedDetector()
        seen: dict[SurfaceId, Detection] = {pane.surface_id: NOTHING}  # the estimator's
        w.service.detector = detector
        w.service.last_detection = seen.get
        shell = pane.row.current_command  # type: ignore[union-attr]

        def command() -> str:
            return str(w.service.pane_info(pane)["command"])

        assert command() == shell and detector.looks == 1
        assert [command() for _ in range(3)] == [shell] * 3
        assert detector.looks == 1  # nothing changed: no /proc read per pane per list

        # tmux names a new foreground process: one fresh look shows the agent at once,
        # before the estimator's next pass.
        w.tmux.pane(pane.tmux_id).command = "claude"
        await w.service.refresh_panes()
        detector.answer = Detection(AgentProvider.CLAUDE_CODE, 7, 7)
        assert command() == "Claude Code" and detector.looks == 2
        assert command() == "Claude Code" and detector.looks == 2

        # It ends; a wrapper script named like the process before starts another: tmux's name
        # does not change, the estimator's next detection does.
        detector.answer = Detection(AgentProvider.CLAUDE_CODE, 9, 8)
        seen[pane.surface_id] = Detection(AgentProvider.CLAUDE_CODE, 9, 8)
        assert command() == "Claude Code" and detector.looks == 3
        detector.answer = NOTHING
        seen[pane.surface_id] = NOTHING
        w.tmux.pane(pane.tmux_id).command = "exec /bin/sh"
        await w.service.refresh_panes()
        assert command() == shell and detector.looks == 4

        # Without the estimator's detections every look reads /proc.
        w.service.last_detection = None
        command()
        command()
        assert detector.looks == 6

    run(tmp_path, scenario)
