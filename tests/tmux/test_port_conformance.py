"""One behaviour suite for every TmuxPort verb, run against the fake and a real tmux server.

Each test is a scenario over a ``World``: a port whose own client sits in session ``_ctl``, and
a session ``base`` (200x50) whose one pane runs ``exec sleep`` (a terminal that echoes what is
typed and never reads it). The real world is a private tmux server on a short socket (the
harness's), so the fake is held to what tmux actually does.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import os
import pty
import struct
import subprocess
import termios
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import TmuxPaneId
from mytty.tmux.control_port import connect
from mytty.tmux.fake import FakeTmux
from mytty.tmux.port import (
    SURFACE_OPTION,
    ClientView,
    HumanClient,
    OptionScope,
    OptionUpdate,
    PaneRow,
    TmuxPort,
)
from tests.support.harness import TMUX, Mytty

T = TypeVar("T")
SLEEP = "exec sleep 100000"
INDEX = 4242


class World(Protocol):
    port: TmuxPort

    def attach_human(self, session: str) -> str:
        """Attach a human's client to ``session``; return its name."""
        ...

    def kill_server(self) -> None: ...

    def pane_env(self, pane_id: str) -> dict[str, str]:
        """The environment the pane's process got."""
        ...

    def watched_hooks(self) -> set[str]:
        """The global hooks set at :data:`INDEX`."""
        ...

    def zoom(self, pane_id: str) -> None:
        """Zoom the pane's window, as a human does."""
        ...

    def user_option(self, scope: OptionScope, target: str, name: str) -> str | None:
        """A user option as tmux holds it (None when unset)."""
        ...

    def shown_to(self, client: str) -> str:
        """What reached the human's terminal (real: its pty's bytes; fake: its messages)."""
        ...

    def pane_cwd(self, pane_id: str) -> str | None:
        """The directory the pane's process runs in (real: /proc/<pid>/cwd; None: not yet)."""
        ...

    def ran_injected(self) -> bool:
        """Whether a ``#(cd;touch PWNED)`` format ever ran (real: $HOME/PWNED exists)."""
        ...


Scenario = Callable[[World], Coroutine[Any, Any, None]]
#: A pane id no server has.
MISSING = TmuxPaneId("%999")


class FakeWorld:
    def __init__(self) -> None:
        self.fake = FakeTmux("_ctl")
        self.fake.add_session("base", size=(200, 50), command=SLEEP)
        self.port: TmuxPort = self.fake

    def attach_human(self, session: str) -> str:
        return self.fake.attach_human(session)

    def kill_server(self) -> None:
        self.fake.kill_server()

    def pane_env(self, pane_id: str) -> dict[str, str]:
        return self.fake.pane(pane_id).env

    def watched_hooks(self) -> set[str]:
        return {hook for hook, index in self.fake.hooks if index == INDEX}

    def zoom(self, pane_id: str) -> None:
        self.fake.zoom(pane_id)

    def user_option(self, scope: OptionScope, target: str, name: str) -> str | None:
        if scope is OptionScope.PANE:
            return self.fake.pane(target).options.get(name)
        if scope is OptionScope.SESSION:
            return next(s for s in self.fake.sessions if s.name == target).options.get(name)
        return self.fake.global_options.get(name)

    def shown_to(self, client: str) -> str:
        return "\n".join(self.fake.human(client).messages)

    def pane_cwd(self, pane_id: str) -> str | None:
        return self.fake.pane(pane_id).cwd

    def ran_injected(self) -> bool:
        return False


class RealWorld:
    def __init__(self, m: Mytty, port: TmuxPort) -> None:
        self.m = m
        self.port = port
        self._humans: list[tuple[subprocess.Popen[bytes], int]] = []
        self._screens: dict[str, bytearray] = {}

    def attach_human(self, session: str) -> str:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        name = os.ttyname(slave)
        proc = subprocess.Popen(
            [TMUX, "-S", self.m.socket, "attach-session", "-t", f"={session}"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=self.m.env,
            start_new_session=True,
        )
        os.close(slave)
        screen = self._screens[name] = bytearray()

        def drain() -> None:  # a terminal nobody reads would block the client's redraws
            try:
                while chunk := os.read(master, 65536):
                    screen.extend(chunk)
            except OSError:
                pass

        threading.Thread(target=drain, daemon=True).start()
        self._humans.append((proc, master))
        return name

    def close(self) -> None:
        for proc, master in self._humans:
            proc.kill()
            proc.wait()
            os.close(master)

    def kill_server(self) -> None:
        self.m.tmux("kill-server")

    def pane_env(self, pane_id: str) -> dict[str, str]:
        pid = self.m.tmux("display-message", "-p", "-t", pane_id, "#{pane_pid}").strip()
        with open(f"/proc/{pid}/environ", "rb") as f:
            entries = f.read().split(b"\0")
        pairs = (e.decode().partition("=") for e in entries if b"=" in e)
        return {k: v for k, _, v in pairs}

    def watched_hooks(self) -> set[str]:
        out = self.m.tmux("show-hooks", "-g") + self.m.tmux("show-hooks", "-gw")
        return {line.split("[")[0] for line in out.splitlines() if f"[{INDEX}]" in line}

    def zoom(self, pane_id: str) -> None:
        self.m.tmux("resize-pane", "-Z", "-t", pane_id)

    def user_option(self, scope: OptionScope, target: str, name: str) -> str | None:
        where = {
            OptionScope.PANE: ["-p", "-t", target],
            OptionScope.SESSION: ["-t", f"={target}:"],
            OptionScope.GLOBAL: ["-g"],
        }[scope]
        shown = subprocess.run(
            [TMUX, "-S", self.m.socket, "show-options", *where, name],
            env=self.m.env,
            capture_output=True,
            text=True,
            check=False,
        )
        if shown.returncode != 0 or not shown.stdout:  # 3.3a: "invalid option" when unset
            return None
        # `show-options` prints `@name value`, quoting a value that needs it: read it back raw.
        return self.m.tmux("show-options", "-v", *where, name).removesuffix("\n")

    def shown_to(self, client: str) -> str:
        return bytes(self._screens[client]).decode("utf-8", "replace")

    def pane_cwd(self, pane_id: str) -> str | None:
        pid = self.m.tmux("display-message", "-p", "-t", pane_id, "#{pane_pid}").strip()
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            return None
        # Until the pane's process has exec'd it may still sit in the server's directory.
        start = self.m.tmux("display-message", "-p", "-t", pane_id, "#{pane_current_command}")
        return cwd if start.strip() == "sleep" else None

    def ran_injected(self) -> bool:
        return (self.m.home / "PWNED").exists()


def run_fake(scenario: Scenario) -> None:
    asyncio.run(scenario(FakeWorld()))


def run_real(scenario: Scenario) -> None:
    m = Mytty(start_tmux=False)
    try:
        m.tmux("-f", "/dev/null", "new-session", "-d", "-s", "base", "-x", "200", "-y", "50", SLEEP)
        m.tmux("new-session", "-d", "-s", "_ctl", "-x", "80", "-y", "24", SLEEP)

        async def main() -> None:
            port = await connect(m.socket, "_ctl", lambda _kind, _rest: None)
            world = RealWorld(m, port)
            try:
                await scenario(world)
            finally:
                world.close()
                await port.close()
                # Finalize the client's subprocess transport while its loop still runs.
                gc.collect()

        asyncio.run(main())
    finally:
        m.close()


@pytest.fixture(params=["fake", pytest.param("tmux", marks=pytest.mark.tmux)])
def run(request: pytest.FixtureRequest) -> Iterator[Callable[[Scenario], None]]:
    yield run_fake if request.param == "fake" else run_real


# -- helpers ----------------------------------------------------------------------------------
async def eventually(
    probe: Callable[[], Awaitable[T]], ok: Callable[[T], bool], timeout: float = 10.0
) -> T:
    """Poll ``probe`` until ``ok`` holds (a real pane's process and screen change on their own)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await probe()
        if ok(value) or loop.time() > deadline:
            assert ok(value), f"condition never held; last value: {value!r}"
            return value
        await asyncio.sleep(0.02)


async def rows(port: TmuxPort) -> dict[str, PaneRow]:
    return {r.pane_id: r for r in await port.list_panes()}


async def base_pane(port: TmuxPort) -> PaneRow:
    return next(r for r in await port.list_panes() if r.session_name == "base")


async def raises(code: ErrorCode, call: Awaitable[object]) -> None:
    with pytest.raises(MyttyError) as err:
        await call
    assert err.value.code is code, err.value.message


class Created:
    """An ``on_created`` callback that records what it saw."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    def __call__(self, pane_id: str, pid: int) -> None:
        self.seen.append((pane_id, pid))


# -- queries ----------------------------------------------------------------------------------
def test_list_panes_describes_every_pane(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        listed = await w.port.list_panes()
        assert sorted(r.session_name for r in listed) == ["_ctl", "base"]
        base = await eventually(lambda: base_pane(w.port), lambda r: r.current_command == "sleep")
        assert base.pane_id.startswith("%") and base.window_id.startswith("@")
        assert base.session_id.startswith("$") and base.pane_pid > 0
        assert (base.window_index, base.pane_index) == (0, 0)
        assert base.window_active and base.pane_active and not base.dead
        assert (base.left, base.top, base.width, base.height) == (0, 0, 200, 50)
        assert (base.window_width, base.window_height) == (200, 50)
        assert (base.session_attached, base.surface) == (0, "")

    run(scenario)


def test_current_window_is_the_ports_own_window(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        own = next(r for r in await w.port.list_panes() if r.session_name == "_ctl")
        assert await w.port.current_window() == own.window_id

    run(scenario)


def test_server_pid_and_identity_are_stable(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        pid = await w.port.server_pid()
        assert pid > 0 and await w.port.server_pid() == pid
        identity = await w.port.server_identity()
        assert identity.startswith(f"{pid}@") and identity.split("@")[1].isdigit()
        assert await w.port.server_identity() == identity

    run(scenario)


def test_has_session_matches_exact_names_only(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        assert await w.port.has_session("base")
        assert not await w.port.has_session("bas")
        assert not await w.port.has_session("nope")

    run(scenario)


def test_human_clients_are_attached_terminals_most_recent_first(
    run: Callable[[Scenario], None],
) -> None:
    async def scenario(w: World) -> None:
        assert await w.port.human_clients() == []  # the port's own control client is no human
        name = w.attach_human("base")
        clients = await eventually(w.port.human_clients, lambda c: len(c) == 1)
        assert isinstance(clients[0], HumanClient)
        assert (clients[0].name, clients[0].session_name) == (name, "base")
        assert (await base_pane(w.port)).session_attached == 1

    run(scenario)


# -- creating panes ---------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["right", "left", "down", "up"])
def test_split_places_a_new_pane_beside_its_target(
    run: Callable[[Scenario], None], direction: str, tmp_path: Path
) -> None:
    async def scenario(w: World) -> None:
        old = await base_pane(w.port)
        cwd = os.path.realpath(tmp_path)
        created = Created()
        pane_id, pid = await w.port.split(
            old.pane_id,
            direction,
            cwd=cwd,
            env={"MYTTY_T": "a b 'c'"},
            command=SLEEP,
            on_created=created,
        )
        assert created.seen == [(pane_id, pid)]
        # tmux reads the path from the pane's process, which starts a moment later.
        now = await eventually(lambda: rows(w.port), lambda r: r[pane_id].current_path == cwd)
        new, before = now[pane_id], now[old.pane_id]
        assert new.window_id == old.window_id and new.pane_pid == pid
        assert before.pane_active and not new.pane_active  # split never takes the focus
        # One cell separates the two; the first one (left or top) gets the odd cell.
        first, second = ((0, 0, 100, 50), (101, 0, 99, 50))
        if direction in ("down", "up"):
            first, second = ((0, 0, 200, 25), (0, 26, 200, 24))
        new_first = direction in ("left", "up")
        expect_new, expect_old = (first, second) if new_first else (second, first)
        assert (new.left, new.top, new.width, new.height) == expect_new
        assert (before.left, before.top, before.width, before.height) == expect_old
        assert (new.pane_index < before.pane_index) == new_first
        env = await eventually(
            lambda: asyncio.sleep(0, w.pane_env(pane_id)), lambda e: "MYTTY_T" in e
        )
        assert env["MYTTY_T"] == "a b 'c'"

    run(scenario)


def test_split_of_a_missing_pane_is_split_failed(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        created = Created()
        await raises(
            ErrorCode.SPLIT_FAILED,
            w.port.split(MISSING, "right", cwd=None, env={}, command=SLEEP, on_created=created),
        )
        assert created.seen == []

    run(scenario)


def test_new_window_goes_right_after_the_current_window(
    run: Callable[[Scenario], None], tmp_path: Path
) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        cwd = os.path.realpath(tmp_path)
        created = Created()
        first, _ = await w.port.new_window(
            "base", cwd=cwd, env={"MYTTY_T": "1"}, command=SLEEP, on_created=created
        )
        second, pid = await w.port.new_window(
            "base", cwd=None, env={}, command=SLEEP, on_created=created
        )
        assert [p for p, _ in created.seen] == [first, second]
        now = await eventually(lambda: rows(w.port), lambda r: r[first].current_path == cwd)
        assert now[base.pane_id].window_active  # new windows open in the background
        assert (now[second].window_index, now[first].window_index) == (1, 2)
        assert now[second].pane_pid == pid
        assert now[first].window_id != base.window_id

    run(scenario)


def test_new_window_after_a_given_window_with_a_name(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        later, _ = await w.port.new_window(
            "base", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        named, _ = await w.port.new_window(
            "ignored",
            cwd=None,
            env={},
            command=SLEEP,
            on_created=Created(),
            after=base.window_id,
            name="workers",
        )
        now = await rows(w.port)
        assert now[named].window_name == "workers" and now[named].session_name == "base"
        assert (now[named].window_index, now[later].window_index) == (1, 2)
        await raises(
            ErrorCode.NEW_TAB_FAILED,
            w.port.new_window(
                "base", cwd=None, env={}, command=SLEEP, on_created=Created(), after="@999"
            ),
        )

    run(scenario)


#: Names that tmux would read as formats, styles, shell commands or command-line syntax if they
#: reached it unescaped (tmux 3.3a ran the first one; see mytty/tmux/literal.py).
HOSTILE_NAMES = [
    "w#(cd;touch PWNED)",
    "a##b",
    "notes##2026",
    "m#S",
    "d#{pane_id}",
    "h#[fg=red]z",
    "k##[x]",
    "e#",
    "#{",
    "x#}y#,z",
    "p%d%H",
    "q;r",
    "s'x\"y",
    "b\\c",
    "$HOME",
    "~x",
    "nl\nx",
    "us\x1fx",
    "esc\x1bx",
    "é#ß",
]


@pytest.mark.parametrize("verb", ["split", "new_window", "new_session"])
def test_panes_start_in_the_directory_asked_for_whatever_its_name(
    run: Callable[[Scenario], None], verb: str, tmp_path: Path
) -> None:
    async def scenario(w: World) -> None:
        made: dict[TmuxPaneId, str] = {}
        for i, name in enumerate(HOSTILE_NAMES):
            cwd = os.path.join(os.path.realpath(tmp_path), name)
            os.mkdir(cwd)
            made[await create(w, verb, i, cwd)] = cwd
        for pane, cwd in made.items():
            await wait_for_cwd(w, pane, cwd)
        # Each is listed in a row of its own: the newline and the separator did not split one.
        extra = len(made) if verb == "split" else 0  # the windows that were split
        assert len(await w.port.list_panes()) == len(made) + extra + 2
        assert not w.ran_injected()

    run(scenario)


async def create(w: World, verb: str, i: int, cwd: str) -> TmuxPaneId:
    """A pane made by ``verb`` (split, new_window, new_session) in ``cwd``."""
    if verb == "split":  # a window of its own each, so there is room to split
        target, _ = await w.port.new_window(
            "base", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        pane, _ = await w.port.split(
            target, "down", cwd=cwd, env={}, command=SLEEP, on_created=Created()
        )
        return pane
    if verb == "new_window":
        pane, _ = await w.port.new_window(
            "base", cwd=cwd, env={}, command=SLEEP, on_created=Created()
        )
        return pane
    return await w.port.new_session(f"s{i}", cwd=cwd, env={}, command=SLEEP, on_created=Created())


async def wait_for_cwd(w: World, pane: TmuxPaneId, cwd: str) -> None:
    """The pane's process runs in ``cwd``, and tmux lists that directory as it is."""

    async def process_cwd() -> str | None:
        return w.pane_cwd(pane)

    async def listed_path() -> str:
        return (await rows(w.port))[pane].current_path

    await eventually(process_cwd, lambda c: c == cwd)
    await eventually(listed_path, lambda p: p == cwd)


def test_window_and_session_names_are_text(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        for name in HOSTILE_NAMES:
            pane, _ = await w.port.new_window(
                "base", cwd=None, env={}, command=SLEEP, on_created=Created(), name=name
            )
            assert (await rows(w.port))[pane].window_name == name
        for name in [n for n in HOSTILE_NAMES if not set(n) & set(":.\\$\n\x1f\x1b")]:
            pane = await w.port.new_session(
                name, cwd="/", env={}, command=SLEEP, on_created=Created()
            )
            assert (await rows(w.port))[pane].session_name == name
            assert await w.port.has_session(name)
            await w.port.kill_session(name)
            assert not await w.port.has_session(name)
        # Names tmux would store as something else are refused before anything is sent.
        for name in ["a:b", "a.b", "a\\b", "$HOME", "nl\nx", ""]:
            await raises(
                ErrorCode.INVALID_REQUEST,
                w.port.new_session(name, cwd="/", env={}, command=SLEEP, on_created=Created()),
            )
            assert not await w.port.has_session(name) if name else True
        assert not w.ran_injected()

    run(scenario)


def test_session_targets_are_exact(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        # tmux would take "bas" for "base" (a prefix) and "b*" as a pattern.
        for name in ("bas", "b*", "ba?e"):
            await raises(
                ErrorCode.NEW_TAB_FAILED,
                w.port.new_window(name, cwd=None, env={}, command=SLEEP, on_created=Created()),
            )
            assert not await w.port.has_session(name)

    run(scenario)


def test_option_names_tmux_would_expand_are_refused(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        for name in ("@x#{pid}", "@a b", "status", "@"):
            await raises(ErrorCode.INVALID_REQUEST, w.port.set_pane_option(base.pane_id, name, "v"))
            await raises(
                ErrorCode.INVALID_REQUEST,
                w.port.set_user_options([OptionUpdate(OptionScope.GLOBAL, "", name, "v")]),
            )
        for value in HOSTILE_NAMES:
            await w.port.set_pane_option(base.pane_id, SURFACE_OPTION, value)
            assert (await rows(w.port))[base.pane_id].surface == value
            await w.port.set_user_options(
                [OptionUpdate(OptionScope.PANE, base.pane_id, "@mytty_label", value)]
            )
            assert w.user_option(OptionScope.PANE, base.pane_id, "@mytty_label") == value
        assert not w.ran_injected()

    run(scenario)


def test_rows_say_whether_a_window_is_zoomed(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        assert not base.window_zoomed
        other, _ = await w.port.split(
            base.pane_id, "right", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        w.zoom(other)
        now = await rows(w.port)
        assert now[other].window_zoomed and now[base.pane_id].window_zoomed
        own = next(r for r in now.values() if r.session_name == "_ctl")
        assert not own.window_zoomed

    run(scenario)


def test_new_window_in_a_missing_session_is_new_tab_failed(
    run: Callable[[Scenario], None],
) -> None:
    async def scenario(w: World) -> None:
        await raises(
            ErrorCode.NEW_TAB_FAILED,
            w.port.new_window("nope", cwd=None, env={}, command=SLEEP, on_created=Created()),
        )

    run(scenario)


def test_new_session_gives_its_pane_the_environment(
    run: Callable[[Scenario], None], tmp_path: Path
) -> None:
    async def scenario(w: World) -> None:
        cwd = os.path.realpath(tmp_path)
        created = Created()
        pane_id = await w.port.new_session(
            "work", cwd=cwd, env={"MYTTY_T": "x"}, command=SLEEP, on_created=created
        )
        assert created.seen == [(pane_id, 0)]
        assert await w.port.has_session("work")
        row = await eventually(
            lambda: rows(w.port),
            lambda r: (r[pane_id].current_command, r[pane_id].current_path) == ("sleep", cwd),
        )
        assert row[pane_id].session_name == "work"
        env = await eventually(
            lambda: asyncio.sleep(0, w.pane_env(pane_id)), lambda e: "MYTTY_T" in e
        )
        assert env["MYTTY_T"] == "x"
        await raises(
            ErrorCode.NEW_TAB_FAILED,
            w.port.new_session("work", cwd=cwd, env={}, command=SLEEP, on_created=Created()),
        )

    run(scenario)


def test_respawn_restarts_the_pane_with_a_new_process(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        await w.port.respawn(base.pane_id, env={"MYTTY_T": "respawned"}, command="exec sleep 99")
        now = await eventually(
            lambda: rows(w.port), lambda r: r[base.pane_id].pane_pid != base.pane_pid
        )
        assert now[base.pane_id].window_id == base.window_id
        env = await eventually(
            lambda: asyncio.sleep(0, w.pane_env(base.pane_id)), lambda e: "MYTTY_T" in e
        )
        assert env["MYTTY_T"] == "respawned"
        await raises(
            ErrorCode.INTERNAL_ERROR, w.port.respawn(MISSING, env={}, command="exec sleep 1")
        )

    run(scenario)


# -- input and screen -------------------------------------------------------------------------
def test_text_and_keys_reach_the_screen(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        pane = (await base_pane(w.port)).pane_id
        blank = await w.port.capture(pane)
        assert (blank.text, blank.cursor_row, blank.cursor_column) == ("", 0, 0)
        await w.port.send_text(pane, 'it\'s "$HOME" #{pane_id};x\nsecond')
        shot = await eventually(lambda: w.port.capture(pane), lambda s: s.text.endswith("second"))
        assert shot.text == 'it\'s "$HOME" #{pane_id};x\nsecond'
        assert (shot.cursor_row, shot.cursor_column) == (1, 6)
        await w.port.send_key(pane, "BSpace")
        shot = await eventually(lambda: w.port.capture(pane), lambda s: s.text.endswith("secon"))
        assert (shot.cursor_row, shot.cursor_column) == (1, 5)
        await w.port.send_key(pane, "Enter")
        shot = await eventually(lambda: w.port.capture(pane), lambda s: s.cursor_row == 2)
        assert shot.text.endswith("secon") and shot.cursor_column == 0

    run(scenario)


def test_text_that_looks_like_flags_is_typed_as_it_is(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        pane = (await base_pane(w.port)).pane_id
        await w.port.send_text(pane, "-la")
        await w.port.send_text(pane, " -- -0 #{pane_id} w#(cd;touch PWNED)")
        want = "-la -- -0 #{pane_id} w#(cd;touch PWNED)"
        shot = await eventually(lambda: w.port.capture(pane), lambda s: s.text == want)
        assert shot.cursor_column == len(want)
        assert not w.ran_injected()

    run(scenario)


def test_input_and_capture_of_a_missing_pane_is_pane_not_found(
    run: Callable[[Scenario], None],
) -> None:
    async def scenario(w: World) -> None:
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.send_text(MISSING, "x"))
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.send_key(MISSING, "Enter"))
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.capture(MISSING))

    run(scenario)


def test_text_tmux_cannot_take_is_invalid_request(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        pane = (await base_pane(w.port)).pane_id
        await raises(ErrorCode.INVALID_REQUEST, w.port.send_text(pane, "a\ud800b"))
        await raises(ErrorCode.INVALID_REQUEST, w.port.set_global_env("MYTTY_T", "\udfff"))
        # Nothing was sent, and the port still works.
        assert (await w.port.capture(pane)).text == ""

    run(scenario)


# -- panes, windows, sessions -----------------------------------------------------------------
def test_kill_pane_removes_the_pane_and_an_emptied_window(
    run: Callable[[Scenario], None],
) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        split, _ = await w.port.split(
            base.pane_id, "right", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        lone, _ = await w.port.new_window(
            "base", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        lone_window = (await rows(w.port))[lone].window_id
        await w.port.kill_pane(split)
        await w.port.kill_pane(lone)
        now = await rows(w.port)
        assert split not in now and lone not in now
        assert lone_window not in {r.window_id for r in now.values()}
        assert (now[base.pane_id].width, now[base.pane_id].height) == (200, 50)
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.kill_pane(split))

    run(scenario)


def test_kill_session_ends_exactly_that_session(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        await w.port.new_session("bas", cwd="/", env={}, command=SLEEP, on_created=Created())
        await w.port.kill_session("bas")
        assert not await w.port.has_session("bas")
        assert await w.port.has_session("base")
        await w.port.kill_session("nope")  # no error

    run(scenario)


def test_focus_selects_the_pane_and_its_window(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        pane, _ = await w.port.new_window(
            "base", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        other, _ = await w.port.split(
            pane, "down", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        window = (await rows(w.port))[other].window_id
        await w.port.focus(other, window, "base")
        now = await rows(w.port)
        assert now[other].window_active and now[other].pane_active
        assert not now[pane].pane_active and not now[base.pane_id].window_active
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.focus(MISSING, window, "base"))

    run(scenario)


def test_focus_moves_the_humans_client_to_the_panes_session(
    run: Callable[[Scenario], None],
) -> None:
    async def scenario(w: World) -> None:
        name = w.attach_human("base")
        await eventually(w.port.human_clients, lambda c: len(c) == 1)
        pane = await w.port.new_session(
            "other", cwd="/", env={}, command=SLEEP, on_created=Created()
        )
        window = (await rows(w.port))[pane].window_id
        await w.port.focus(pane, window, "other")
        clients = await eventually(
            w.port.human_clients, lambda c: bool(c) and c[0].session_name == "other"
        )
        assert clients[0].name == name

    run(scenario)


def test_pane_options_carry_the_surface_id(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        await w.port.set_pane_option(base.pane_id, SURFACE_OPTION, "SURFACE 'id'")
        assert (await rows(w.port))[base.pane_id].surface == "SURFACE 'id'"
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.set_pane_option(MISSING, SURFACE_OPTION, "x"))

    run(scenario)


def test_user_options_are_set_and_unset_in_one_batch(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await base_pane(w.port)
        P, S, G = OptionScope.PANE, OptionScope.SESSION, OptionScope.GLOBAL
        odd = "it's; #{pane_id} $HOME \\ é"
        await w.port.set_user_options(
            [
                OptionUpdate(P, base.pane_id, "@mytty_state", "running"),
                OptionUpdate(P, base.pane_id, "@mytty_note", odd),
                OptionUpdate(P, base.pane_id, "@mytty_attention", ""),
                OptionUpdate(S, "base", "@mytty_attention_count", "2"),
                OptionUpdate(G, "", "@mytty_attention_total", "3"),
                # Gone targets are skipped; the updates after them still apply.
                OptionUpdate(P, MISSING, "@mytty_state", "x"),
                OptionUpdate(S, "no-such-session", "@mytty_attention_count", "1"),
                OptionUpdate(P, base.pane_id, "@mytty_label", "w1"),
            ]
        )
        assert w.user_option(P, base.pane_id, "@mytty_state") == "running"
        assert w.user_option(P, base.pane_id, "@mytty_note") == odd
        assert w.user_option(P, base.pane_id, "@mytty_attention") == ""
        assert w.user_option(P, base.pane_id, "@mytty_label") == "w1"
        assert w.user_option(S, "base", "@mytty_attention_count") == "2"
        assert w.user_option(G, "", "@mytty_attention_total") == "3"
        await w.port.set_user_options(
            [
                OptionUpdate(P, base.pane_id, "@mytty_state", None),
                OptionUpdate(S, "base", "@mytty_attention_count", None),
                OptionUpdate(G, "", "@mytty_attention_total", None),
                OptionUpdate(G, "", "@mytty_attention_total", None),  # unsetting twice is fine
            ]
        )
        assert w.user_option(P, base.pane_id, "@mytty_state") is None
        assert w.user_option(S, "base", "@mytty_attention_count") is None
        assert w.user_option(G, "", "@mytty_attention_total") is None
        assert w.user_option(P, base.pane_id, "@mytty_note") == odd
        await raises(
            ErrorCode.INVALID_REQUEST,
            w.port.set_user_options([OptionUpdate(P, base.pane_id, "@mytty_note", "a\ud800")]),
        )
        w.kill_server()
        await raises(
            ErrorCode.TMUX_UNAVAILABLE,
            w.port.set_user_options([OptionUpdate(G, "", "@mytty_attention_total", "1")]),
        )

    run(scenario)


# -- server-wide state ------------------------------------------------------------------------
def test_global_environment_round_trips(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        assert await w.port.global_env("MYTTY_T") is None
        await w.port.set_global_env("MYTTY_T", "a b 'c' $HOME")
        assert await w.port.global_env("MYTTY_T") == "a b 'c' $HOME"
        await w.port.unset_global_env("MYTTY_T")
        assert await w.port.global_env("MYTTY_T") is None
        await w.port.unset_global_env("MYTTY_T")  # no error

    run(scenario)


def test_watched_hooks_rename_the_ports_window(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        hooks = ("after-split-window", "after-new-window", "after-kill-pane")
        own_window = await w.port.current_window()

        async def own_name() -> str:
            return next(
                r.window_name for r in await w.port.list_panes() if r.window_id == own_window
            )

        await w.port.watch_hooks(hooks, INDEX)
        assert w.watched_hooks() == set(hooks)
        base = await base_pane(w.port)
        split, _ = await w.port.split(
            base.pane_id, "right", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        await eventually(own_name, lambda n: n == "mytty-after-split-window")
        await w.port.kill_pane(split)
        await eventually(own_name, lambda n: n == "mytty-after-kill-pane")
        await w.port.new_window("base", cwd=None, env={}, command=SLEEP, on_created=Created())
        await eventually(own_name, lambda n: n == "mytty-after-new-window")
        await w.port.unwatch_hooks(hooks, INDEX)
        assert w.watched_hooks() == set()
        await w.port.unwatch_hooks(hooks, INDEX)  # no error

    run(scenario)


def test_a_server_that_exits_makes_every_verb_tmux_unavailable(
    run: Callable[[Scenario], None],
) -> None:
    async def scenario(w: World) -> None:
        w.kill_server()
        async with asyncio.timeout(10):
            await w.port.wait_closed()  # type: ignore[attr-defined]
        await raises(ErrorCode.TMUX_UNAVAILABLE, w.port.list_panes())
        await raises(ErrorCode.TMUX_UNAVAILABLE, w.port.send_text(TmuxPaneId("%0"), "x"))
        await raises(ErrorCode.TMUX_UNAVAILABLE, w.port.has_session("base"))

    run(scenario)


# -- notifications ----------------------------------------------------------------------------
def test_client_views_say_what_each_human_sees(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        assert await w.port.client_views() == []  # the port's own control client sees nothing
        name = w.attach_human("base")
        base = await base_pane(w.port)
        views = await eventually(w.port.client_views, lambda v: len(v) == 1)
        assert views == [ClientView(name, "base", base.window_id, base.pane_id)]
        split, _ = await w.port.split(
            base.pane_id, "right", cwd=None, env={}, command=SLEEP, on_created=Created()
        )
        await w.port.focus(split, base.window_id, "base")
        views = await eventually(w.port.client_views, lambda v: v[0].pane_id == split)
        assert views[0].window_id == base.window_id

    run(scenario)


@pytest.mark.parametrize(
    "text",
    [
        "mytty: #{pane_id} needs approval",
        "notes##2026 a##b ##",
        "100% done on %d at %H:%M",
        "style #[fg=red]x k##[y] #[",
        "w#(cd;touch PWNED) m#S end#",
        "-0 looks like a flag",
    ],
)
def test_display_message_shows_literal_text_on_a_client(
    run: Callable[[Scenario], None], text: str
) -> None:
    async def scenario(w: World) -> None:
        name = w.attach_human("base")
        await eventually(w.port.client_views, lambda v: len(v) == 1)
        await w.port.display_message(name, text)
        await eventually(lambda: asyncio.sleep(0, w.shown_to(name)), lambda shown: text in shown)
        assert not w.ran_injected()
        await w.port.display_message("/dev/pts/nobody", "x")  # a client gone since: no error

    run(scenario)


def test_pane_output_appears_as_the_panes_own(run: Callable[[Scenario], None]) -> None:
    async def scenario(w: World) -> None:
        base = await eventually(lambda: base_pane(w.port), lambda r: r.current_command == "sleep")
        await w.port.write_pane_output(base.pane_id, b"printed-by-mytty")
        await eventually(
            lambda: w.port.capture(base.pane_id), lambda c: "printed-by-mytty" in c.text
        )
        await raises(ErrorCode.PANE_NOT_FOUND, w.port.write_pane_output(MISSING, b"x"))

    run(scenario)
