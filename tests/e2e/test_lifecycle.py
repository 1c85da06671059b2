"""The controller's life: private files, restarts that keep pane identities, a tmux server
that dies or is replaced, a second controller, `mytty start/stop`, and startup errors.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from tests.support.harness import MYTTY, MYTTY_CTL, Mytty, wait_until

pytestmark = pytest.mark.tmux


def mode(path: str | Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def run_mytty(m: Mytty, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args],
        env=m.env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(m.home),
        check=False,
    )


def surfaces_in_tmux(m: Mytty) -> dict[str, str]:
    """tmux pane id → @mytty_surface, as tmux itself stores it (user panes only)."""
    out = m.tmux("list-panes", "-a", "-F", "#{pane_id} #{session_name} #{@mytty_surface}")
    rows = [line.split(" ") for line in out.splitlines()]
    return {r[0]: r[2] for r in rows if r[1] != "_mytty"}


def listed_ids(m: Mytty) -> set[str] | None:
    ran = m.ctl("list")
    return {p["paneID"] for p in ran.json["panes"]} if ran.returncode == 0 else None


# -- private files ------------------------------------------------------------------------------
def test_home_and_sockets_are_private_whatever_the_umask(bare_mytty: Mytty) -> None:
    m = bare_mytty
    m.mytty_home.mkdir(mode=0o755)
    os.chmod(m.mytty_home, 0o755)  # a loose home from before is tightened
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(m.control_socket)  # a stale socket file nobody listens on is replaced
    stale.close()
    old = os.umask(0)
    try:
        m.start()
    finally:
        os.umask(old)
    assert mode(m.mytty_home) == 0o700
    for sock in (m.control_socket, m.event_socket):
        assert stat.S_ISSOCK(os.stat(sock).st_mode)
        assert mode(sock) == 0o600, sock
    assert mode(m.mytty_home / "capability.key") == 0o600
    assert mode(m.mytty_home / "launch") == 0o700
    assert m.ctl("list").returncode == 0


def test_guide_file_matches_mytty_ctl_guide(mytty: Mytty) -> None:
    written = (mytty.mytty_home / "mytty-ctl.md").read_text()
    assert written == mytty.ctl("guide").stdout
    assert "ENVIRONMENT" in written


# -- restarts keep surface ids --------------------------------------------------------------------
@pytest.mark.parametrize("how", ["stop", "kill-9"])
def test_restart_keeps_surface_ids_and_capabilities(mytty: Mytty, how: str) -> None:
    first = mytty.first_pane()
    split = mytty.ctl("split", first, "right").json["paneID"]
    tab = mytty.ctl("new-tab").json["paneID"]
    by_hand = mytty.tmux("split-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}").strip()
    before = wait_until(
        lambda: listed_ids(mytty) if len(listed_ids(mytty) or ()) == 4 else None,
        10,
        message="four panes",
    )
    assert {first, split, tab} < before
    tmux_before = surfaces_in_tmux(mytty)
    assert tmux_before[by_hand] in before

    if how == "stop":
        mytty.stop()
        assert not os.path.exists(mytty.control_socket)
    else:
        mytty.kill9()
        assert os.path.exists(mytty.control_socket)  # left behind: the next start replaces it
    assert mytty.ctl("list").code == "not-running"
    mytty.start()

    assert wait_until(lambda: listed_ids(mytty) == before, 15, message="the same ids after restart")
    assert surfaces_in_tmux(mytty) == tmux_before
    # The pane's capability (in its environment since creation) is still the valid one.
    out = mytty.root / "env-after.json"
    mytty.ctl("send", split, f"mytty-ctl env --json > {shlex.quote(str(out))}", "--enter").ok()
    wait_until(lambda: out.exists() and out.stat().st_size > 0, 15, message="env from the pane")
    env = json.loads(out.read_text())["environment"]
    given = mytty.pane_env(split)
    assert env["MYTTY_SURFACE_ID"] == given["MYTTY_SURFACE_ID"] == split
    assert env["MYTTY_EVENT_CAPABILITY"] == given["MYTTY_EVENT_CAPABILITY"]
    # New panes still get new ids.
    fresh = mytty.ctl("split", first, "down").json["paneID"]
    assert fresh not in before


# -- a replaced tmux server -----------------------------------------------------------------------
def kill_tmux_server(m: Mytty) -> None:
    """Kill the tmux server and wait until its process is gone (its socket is free)."""
    pid = int(m.tmux("display-message", "-p", "#{pid}").strip())
    m.tmux("kill-server")
    wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 10, message="tmux server to exit")


def start_tmux_server(m: Mytty, inherited: dict[str, str], panes: int) -> list[str]:
    """Start a new server on the same socket, as if from inside an old mytty pane."""
    env = dict(m.env)
    env.update(inherited)
    tmux = ["tmux", "-S", m.socket]
    made = subprocess.run(
        [
            *tmux,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "again",
            "-x",
            "200",
            "-y",
            "50",
            "-P",
            "-F",
            "#{pane_id}",
        ],
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    split = [*tmux, "split-window", "-d", "-t", "again:", "-P", "-F", "#{pane_id}"]
    return [made.stdout.strip()] + [
        subprocess.run(split, env=env, check=True, capture_output=True, text=True).stdout.strip()
        for _ in range(panes - 1)
    ]


@pytest.mark.parametrize("controller", ["running", "stopped"])
def test_new_tmux_server_never_inherits_old_surface_ids(mytty: Mytty, controller: str) -> None:
    first = mytty.first_pane()
    created = [mytty.ctl("split", first, d).json["paneID"] for d in ("right", "down", "left")]
    old_ids = listed_ids(mytty)
    assert old_ids is not None and len(old_ids) == 4
    old_tmux_ids = set(surfaces_in_tmux(mytty))
    # The new server is started from inside an old pane: it inherits that pane's variables.
    inherited = {k: v for k, v in mytty.pane_env(created[0]).items() if k.startswith("MYTTY_")}
    assert inherited["MYTTY_SURFACE_ID"] == created[0]

    if controller == "stopped":
        mytty.stop()
    kill_tmux_server(mytty)
    if controller == "running":
        wait_until(lambda: mytty.ctl("list").returncode == 1, 10, message="tmux to be gone")
    new_tmux_ids = start_tmux_server(mytty, inherited, panes=4)
    assert old_tmux_ids & set(new_tmux_ids), "the test needs recycled %N ids"
    if controller == "stopped":
        mytty.start()

    new_ids = wait_until(
        lambda: ids if len(ids := listed_ids(mytty) or set()) == 4 else None,
        20,
        message="the new server's panes",
    )
    assert not new_ids & old_ids
    assert set(surfaces_in_tmux(mytty).values()) == new_ids
    for pane in old_ids:
        assert mytty.ctl("read", pane).code == "pane-not-found"


def test_dead_tmux_server_then_reconnect(mytty: Mytty) -> None:
    first = mytty.first_pane()
    other = mytty.ctl("split", first).json["paneID"]
    mytty.ctl("status", "note", "--pane", first).ok()
    kill_tmux_server(mytty)
    wait_until(lambda: mytty.ctl("list").returncode == 1, 10, message="tmux-unavailable")
    commands = [
        ["list"],
        ["new-tab"],
        ["split", first],
        ["send", first, "x"],
        ["send-key", first, "escape"],
        ["read", other],
        ["focus", first],
        ["close-pane", other],
        ["status", "x", "--pane", first],
        ["status", "--clear", "--pane", first],
        ["env"],
    ]
    for argv in commands:
        assert mytty.ctl(*argv).code == "tmux-unavailable", argv
    # The controller does not bring the server back by itself ...
    assert (
        subprocess.run(
            ["tmux", "-S", mytty.socket, "list-sessions"],
            env=mytty.env,
            capture_output=True,
            check=False,
        ).returncode
        != 0
    )
    # ... but reconnects once somebody starts one on that socket.
    start_tmux_server(mytty, {}, panes=1)
    ids = wait_until(lambda: listed_ids(mytty), 20, message="the controller to reconnect")
    assert len(ids) == 1 and not ids & {first, other}
    (fresh,) = ids
    created = mytty.ctl("split", fresh, "--command", "echo back-$((6*7))").json["paneID"]
    mytty.wait_for_text(created, "back-42")
    assert all("statusNote" not in p for p in mytty.panes())


# -- one controller per home ----------------------------------------------------------------------
def test_second_serve_fails_and_the_first_keeps_working(mytty: Mytty) -> None:
    first = mytty.first_pane()
    second = run_mytty(mytty, "serve", "--tmux-socket", mytty.socket, timeout=30)
    assert second.returncode == 1
    assert "Traceback" not in second.stderr
    assert second.stderr.strip().splitlines()[-1].startswith("mytty: already-running: ")
    assert "mytty stop" in second.stderr
    assert os.path.exists(mytty.control_socket)
    assert mytty.proc is not None and mytty.proc.poll() is None
    assert [p["paneID"] for p in mytty.panes()] == [first]
    created = mytty.ctl("split", first).json["paneID"]
    assert created in listed_ids(mytty)  # type: ignore[operator]


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for a reaper has stopped running)."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return False
    return data[data.rindex(b")") + 2 :].split()[0] != b"Z"


def controller_pid(m: Mytty) -> int:
    return int((m.mytty_home / "controller.lock").read_text().strip())


def test_start_is_idempotent_and_stop_stops(bare_mytty: Mytty) -> None:
    m = bare_mytty
    try:
        started = run_mytty(m, "start", "--tmux-socket", m.socket)
        assert started.returncode == 0, started.stderr
        assert "started" in started.stdout
        pid = controller_pid(m)
        assert m.ctl("list").returncode == 0
        again = run_mytty(m, "start", "--tmux-socket", m.socket)
        assert again.returncode == 0, again.stderr
        assert "already running" in again.stdout
        assert controller_pid(m) == pid
        assert alive(pid)
        stopped = run_mytty(m, "stop")
        assert stopped.returncode == 0 and "stopped" in stopped.stdout
        assert not alive(pid)
        assert not os.path.exists(m.control_socket)
        assert not os.path.exists(m.event_socket)
        ran = m.ctl("list")
        assert ran.code == "not-running" and "mytty start" in ran.stderr
        assert run_mytty(m, "stop").stdout.strip() == "mytty is not running"
        # And it starts again.
        assert run_mytty(m, "start", "--tmux-socket", m.socket).returncode == 0
        assert m.ctl("list").returncode == 0
    finally:
        run_mytty(m, "stop")


# -- startup errors -------------------------------------------------------------------------------
def home_with_socket_length(m: Mytty, length: int) -> Path:
    """A MYTTY_HOME whose control.sock path is exactly ``length`` bytes."""
    base = str(m.root) + "/"
    room = length - len(base) - len("/control.sock")
    assert room > 0
    home = Path(base + "h" * room)
    assert len(os.fsencode(str(home / "control.sock"))) == length
    return home


@pytest.mark.parametrize("command", ["serve", "start"])
def test_socket_path_too_long_is_a_clear_error(bare_mytty: Mytty, command: str) -> None:
    m = bare_mytty
    m.env["MYTTY_HOME"] = str(home_with_socket_length(m, 108))
    ran = run_mytty(m, command, "--tmux-socket", m.socket, timeout=30)
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr + ran.stdout
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mytty: socket-path-too-long: "), ran.stderr
    assert "MYTTY_HOME" in lines[0]


def test_socket_path_of_107_bytes_works(bare_mytty: Mytty) -> None:
    m = bare_mytty
    m.mytty_home = home_with_socket_length(m, 107)
    m.env["MYTTY_HOME"] = str(m.mytty_home)
    m.start()
    assert m.ctl("list").returncode == 0


def test_not_running_names_mytty_start(bare_mytty: Mytty) -> None:
    ran = bare_mytty.ctl("list")
    assert ran.code == "not-running"
    assert "mytty start" in ran.stderr
    proc = subprocess.run(
        [MYTTY_CTL, "read", "X"],
        env=bare_mytty.env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 1 and proc.stderr.startswith("mytty-ctl: not-running: ")


@pytest.mark.parametrize("command", ["serve", "start"])
def test_missing_tmux_is_a_clear_error(bare_mytty: Mytty, command: str) -> None:
    m = bare_mytty
    # Only the venv's own scripts on PATH: no tmux anywhere.
    m.env["PATH"] = str(Path(MYTTY).parent)
    ran = run_mytty(m, command, "--tmux-socket", m.socket, timeout=30)
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr + ran.stdout
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mytty: tmux-unavailable: "), ran.stderr
    assert "tmux is not installed" in lines[0]
    assert not Path(m.control_socket).exists()
