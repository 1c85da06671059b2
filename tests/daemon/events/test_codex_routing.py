"""Codex routing: the seed's five rules, and only files held open by the pane's own session."""

from __future__ import annotations

import json as _json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, TmuxPaneId
from mytty.daemon import procfs
from mytty.daemon.events.codex_routing import (
    CodexRouter,
    ProcessView,
    _has_session_file_open,
    _process_tree,
    find_rollout,
    read_rollout,
    resumes_session,
)
from mytty.daemon.panes.identity import Pane, PaneRegistry

# A "TUI" that keeps one child in its session and forks one "daemon" into a new session; the
# daemon holds the rollout file open, like codex's shared app-server.
TUI = r"""
import subprocess, sys, time
rollout = sys.argv[1]
keep = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
daemon = subprocess.Popen(
    [sys.executable, "-c", "import sys, time; f = open(sys.argv[1]); time.sleep(60)", rollout],
    start_new_session=True,
)
print(keep.pid, daemon.pid, flush=True)
time.sleep(60)
"""


def test_a_daemon_in_its_own_session_is_not_the_panes(tmp_path: Path) -> None:
    session = "019a0000-0000-7000-8000-00000000abcd"
    rollout = tmp_path / f"rollout-2026-11-30T00-00-00-{session}.jsonl"
    rollout.write_text("")
    tui = subprocess.Popen(
        [sys.executable, "-c", TUI, str(rollout)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert tui.stdout is not None
        keep_pid, daemon_pid = (int(x) for x in tui.stdout.readline().split())
        deadline = time.monotonic() + 10
        while not _has_session_file_open(daemon_pid, session) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _has_session_file_open(daemon_pid, session)
        own = procfs.session_id(tui.pid)
        tree = _process_tree(tui.pid, own)
        assert keep_pid in tree and daemon_pid not in tree
        # Without the session filter the daemon would be taken for the pane's own process.
        assert daemon_pid in _process_tree(tui.pid, None)
        assert not any(_has_session_file_open(pid, session) for pid in tree)
    finally:
        for pid in (tui.pid,):
            try:
                os.killpg(pid, 9)
            except ProcessLookupError:
                pass
        tui.wait()
        try:
            os.kill(daemon_pid, 9)  # its own session: not in the TUI's process group
        except (ProcessLookupError, UnboundLocalError):
            pass


# -- the five rules, against a fake process view ---------------------------------------------------


@dataclass
class FakeProc:
    argv: list[str]
    cwd: str
    open_files: list[str] = field(default_factory=list)


class FakeProcesses(ProcessView):
    """Each pane's codex is one process; the test says what it runs, where, and holds open."""

    def __init__(self, home: str) -> None:
        self.procs: dict[int, FakeProc] = {}
        self.home = home

    def tree(self, codex_pid: int, pane_pid: int) -> list[int]:
        return [codex_pid]

    def open_files(self, pid: int) -> list[str]:
        return self.procs[pid].open_files

    def argv(self, pid: int) -> list[str]:
        return self.procs[pid].argv

    def cwd(self, pid: int) -> str | None:
        return self.procs[pid].cwd

    def codex_home(self, pid: int) -> str | None:
        return self.home


class World:
    """Codex panes, their processes, rollouts on disk and a router over them."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path
        self.codex_home = tmp_path / ".codex"
        self.procs = FakeProcesses(str(self.codex_home))
        self.panes = PaneRegistry(b"k" * 32)
        self.front: dict[SurfaceId, int | None] = {}
        self._next_pid = 1000
        self.router = CodexRouter(
            panes=self.panes,
            foreground_agent=self._fg,
            processes=self.procs,
            default_codex_home=str(tmp_path / "nowhere"),
        )

    def _fg(self, pane: Pane) -> tuple[AgentProvider | None, int | None]:
        pid = self.front.get(pane.surface_id)
        return (AgentProvider.CODEX, pid) if pid is not None else (None, None)

    def dir(self, name: str) -> str:
        path = self.root / name
        path.mkdir(exist_ok=True)
        return str(path)

    def pane(self, cwd: str, *argv: str) -> SurfaceId:
        surface = SurfaceId(str(uuid.uuid4()).upper())
        self._next_pid += 1
        self.panes.register_created(surface, TmuxPaneId(f"%{self._next_pid}"), self._next_pid)
        self.restart(surface, cwd, *argv)
        return surface

    def restart(self, surface: SurfaceId, cwd: str, *argv: str) -> int:
        """A new codex process in the pane (another pid)."""
        self._next_pid += 1
        self.procs.procs[self._next_pid] = FakeProc(["codex", *argv], cwd)
        self.front[surface] = self._next_pid
        return self._next_pid

    def rollout(
        self, cwd: str, *, originator: str = "codex-tui", source: object = "cli"
    ) -> tuple[str, str]:
        """A new session's rollout file (session id, path), as Codex writes it."""
        session = str(uuid.uuid4())
        folder = self.codex_home / "sessions" / "2026" / "11" / "30"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-2026-11-30T10-00-00-{session}.jsonl"
        meta = {
            "session_id": session,
            "id": session,
            "cwd": cwd,
            "originator": originator,
            "source": source,
            "base_instructions": "x" * 20000,
        }
        path.write_text(
            _json.dumps({"timestamp": "t", "type": "session_meta", "payload": meta}) + "\n"
        )
        return session, str(path)

    def holds(self, surface: SurfaceId, path: str) -> None:
        pid = self.front[surface]
        assert pid is not None
        self.procs.procs[pid].open_files.append(path)

    def route(self, session: str | None, hook: str = "UserPromptSubmit") -> SurfaceId | None:
        event = AgentEvent(
            id=str(uuid.uuid4()).upper(),
            run_id=RunId(str(uuid.uuid4()).upper()),
            surface_id=SurfaceId(str(uuid.uuid4()).upper()),  # whoever started the server
            provider=AgentProvider.CODEX,
            kind=AgentEventKind.STARTED,
            occurred_at=0.0,
            session_id=session,
            hook_name=hook,
        )
        routed = self.router.route(event)
        return None if routed is None else routed.surface_id


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_rule1_the_panes_own_process_holding_the_rollout_wins(world: World) -> None:
    d = world.dir("p")
    a, b = world.pane(d), world.pane(d)
    session, path = world.rollout(d)
    world.holds(b, path)
    assert world.route(session) == b
    # The same file open in two panes' own processes cannot be placed.
    world.holds(a, path)
    assert world.route(session) is None


def test_rule1_beats_an_earlier_binding(world: World) -> None:
    a, b = world.pane(world.dir("a")), world.pane(world.dir("b"))
    session, path = world.rollout(world.dir("a"))
    assert world.route(session) == a  # rule 4
    world.holds(b, path)  # `codex resume` in pane b, its own process now has it open
    assert world.route(session) == b


def test_rule2_the_binding_lasts_while_the_process_does(world: World) -> None:
    d = world.dir("p")
    a = world.pane(d)
    session, _ = world.rollout(d)
    assert world.route(session, "SessionStart") == a
    b = world.pane(d)  # a second unbound pane in the same directory
    assert world.route(session, "Stop") == a  # the binding, not the (now ambiguous) cwd
    world.restart(a, d)  # codex replaced in pane a: the binding is gone
    assert world.route(session, "Stop") is None  # two unbound panes in one directory
    assert world.router.unplaced_since(0.0) >= 1
    assert b


def test_rule3_codex_resume_names_its_session(world: World) -> None:
    d = world.dir("p")
    session, _ = world.rollout(d)
    world.pane(d)
    b = world.pane(d, "resume", session)
    assert world.route(session, "Stop") == b  # not ambiguous: the argv says which
    c = world.pane(world.dir("q"), "--no-daemon", "resume", session.upper())
    world.restart(b, d, "resume", session)  # drop b's binding: now two panes name it
    assert world.route(session, "Stop") is None
    assert c


def test_resume_argv_forms() -> None:
    s = "019a7c1e-5b2d-7e40-9f3a-2c8d41e0b7aa"
    assert resumes_session(["codex", "resume", s], s)
    assert resumes_session(["node", "/x/.bin/codex", "-m", "m", "resume", "--no-daemon", s], s)
    assert not resumes_session(["codex", "resume", "--last"], s)
    assert not resumes_session(["codex", "--", f"resume {s}"], s)
    assert not resumes_session(["codex", "--", "resume", s], s)
    assert not resumes_session(["codex", s], s)


def test_rule4_the_one_unbound_pane_in_the_rollouts_cwd(world: World) -> None:
    a, b = world.pane(world.dir("a")), world.pane(world.dir("b"))
    sa, _ = world.rollout(world.dir("a"))
    sb, _ = world.rollout(world.dir("b"))
    # Two panes served by one shared server: neither process holds anything open.
    assert world.route(sb, "SessionStart") == b
    assert world.route(sa, "SessionStart") == a
    assert world.route(sb, "Stop") == b
    assert world.router.session_of(a) == sa and world.router.session_of(b) == sb


def test_rule4_two_unbound_panes_in_one_directory_are_refused(world: World) -> None:
    d = world.dir("p")
    a, b = world.pane(d), world.pane(d)
    s1, _ = world.rollout(d)
    assert world.route(s1, "SessionStart") is None
    assert world.route(s1, "UserPromptSubmit") is None
    # Once one of them is bound (here: by its own open rollout), the other is the one.
    s2, p2 = world.rollout(d)
    world.holds(a, p2)
    assert world.route(s2) == a
    assert world.route(s1, "SessionStart") == b


@pytest.mark.parametrize(
    ("originator", "source"),
    [
        ("codex_exec", "exec"),
        ("codex-tui", {"subagent": {"thread_spawn": {}}}),
        ("Codex Desktop", "vscode"),
    ],
)
def test_rule4_only_interactive_tui_sessions_bind_by_cwd(
    world: World, originator: str, source: object
) -> None:
    d = world.dir("p")
    world.pane(d)
    session, _ = world.rollout(d, originator=originator, source=source)
    assert world.route(session, "SessionStart") is None


def test_no_session_or_no_rollout_yet_is_refused(world: World) -> None:
    world.pane(world.dir("p"))
    assert world.route(None) is None
    assert world.route(str(uuid.uuid4()), "SessionStart") is None  # no rollout written yet
    assert world.route("../../etc/passwd", "SessionStart") is None


def test_rule5_a_new_session_moves_onto_the_one_stale_pane(world: World) -> None:
    d = world.dir("p")
    a = world.pane(d)
    s1, _ = world.rollout(d)
    assert world.route(s1, "SessionStart") == a
    s2, _ = world.rollout(d)  # /new inside pane a's Codex
    assert world.route(s2, "Stop") is None  # only the start of a session or a turn may rebind
    assert world.route(s2, "SessionStart") == a
    assert world.route(s2, "Stop") == a
    assert world.route(s1, "Stop") == a  # the old binding stays while the process does


def test_rule5_two_stale_panes_in_one_directory_are_refused(world: World) -> None:
    d = world.dir("p")
    a, b = world.pane(d), world.pane(d, "resume", "x")
    s1, p1 = world.rollout(d)
    s2, _ = world.rollout(d)
    world.holds(a, p1)
    assert world.route(s1) == a
    world.procs.procs[world.front[a] or 0].open_files.clear()  # its own process let it go
    assert world.route(s2, "SessionStart") == b  # b is the one unbound pane there
    s3, _ = world.rollout(d)
    assert world.route(s3, "SessionStart") is None  # a and b both bound there
    assert world.route(s3, "UserPromptSubmit") is None


def test_rollout_lookup_reads_only_session_meta(world: World) -> None:
    d = world.dir("p")
    session, path = world.rollout(d)
    assert find_rollout(session, [str(world.root / "none"), str(world.codex_home)]) == path
    rollout = read_rollout(path)
    assert rollout is not None and rollout.cwd == d and rollout.interactive
    Path(path).write_text('{"type": "turn_context", "payload": {"cwd": "/"}}\n')
    assert read_rollout(path) is None
