"""What a new user meets first: `mytty up` on a fresh machine (no tmux socket directory yet,
an empty ``TMUX_TMPDIR``, no ``$TMUX``, a private HOME), failures that are one clear line,
recovery from a dead tmux server, ``--version`` and shell completion.

Every test here uses its own ``TMUX_TMPDIR`` or socket under a temporary directory: the
user's default tmux server is never touched.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from mytty import __version__
from mytty.core.errors import ErrorCode, MyttyError
from mytty.tmux import socketdir
from tests.support.harness import HOOK, MYTTY, MYTTY_CTL, TESTS_DIR, TMUX, Mytty, wait_until

UID = os.getuid()
needs_root = pytest.mark.skipif(UID != 0, reason="giving a directory away needs root")


def run(m: Mytty, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MYTTY, *args],
        env=m.env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(m.home),
        check=False,
    )


def one_failure_line(ran: subprocess.CompletedProcess[str], code: str) -> str:
    """The command failed with exactly one ``mytty: <code>: …`` line and no traceback."""
    assert ran.returncode == 1, (ran.stdout, ran.stderr)
    assert "Traceback" not in ran.stderr + ran.stdout and "╭" not in ran.stderr
    lines = [line for line in ran.stderr.splitlines() if line]
    # `up` may say what it is doing first; the failure is the last line and the only one.
    failures = [line for line in lines if not line.startswith("mytty: starting the controller")]
    assert len(failures) == 1, ran.stderr
    assert failures[0].startswith(f"mytty: {code}: "), ran.stderr
    return failures[0]


@pytest.fixture
def fresh() -> Iterator[Mytty]:
    """No tmux server, no $TMUX, a private HOME, and an empty TMUX_TMPDIR of its own."""
    m = Mytty(start_tmux=False)
    tmpdir = m.root / "tt"
    tmpdir.mkdir()
    m.env["TMUX_TMPDIR"] = str(tmpdir)
    assert "TMUX" not in m.env
    yield m
    subprocess.run([MYTTY, "stop"], env=m.env, capture_output=True, timeout=30, check=False)
    default = tmpdir / f"tmux-{UID}" / "default"
    subprocess.run([TMUX, "-S", str(default), "kill-server"], capture_output=True, check=False)
    m.close()


def default_socket(m: Mytty) -> Path:
    return Path(m.env["TMUX_TMPDIR"]) / f"tmux-{UID}" / "default"


# -- the socket directory, directly ---------------------------------------------------------------
def test_the_default_directory_is_made_like_tmux_makes_it(tmp_path: Path) -> None:
    sock = tmp_path / f"tmux-{UID}" / "default"
    old = os.umask(0)
    try:
        socketdir.ensure(str(sock), default=True)
    finally:
        os.umask(old)
    info = os.lstat(sock.parent)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == UID
    socketdir.ensure(str(sock), default=True)  # an existing good one is fine


def test_the_default_directory_needs_an_existing_tmux_tmpdir(tmp_path: Path) -> None:
    sock = tmp_path / "missing" / f"tmux-{UID}" / "default"
    with pytest.raises(MyttyError) as caught:
        socketdir.ensure(str(sock), default=True)
    assert caught.value.code is ErrorCode.TMUX_UNAVAILABLE
    assert "could not create" in caught.value.message
    assert not (tmp_path / "missing").exists()  # like tmux: only the one level


@pytest.mark.parametrize("mode", [0o755, 0o770, 0o701, 0o707])
def test_a_default_directory_others_can_use_is_refused(tmp_path: Path, mode: int) -> None:
    directory = tmp_path / f"tmux-{UID}"
    directory.mkdir()
    os.chmod(directory, mode)
    with pytest.raises(MyttyError) as caught:
        socketdir.ensure(str(directory / "default"), default=True)
    assert caught.value.code is ErrorCode.UNSAFE_SOCKET_DIRECTORY
    assert f"{mode:04o}" in caught.value.message and "chmod 700" in caught.value.message
    assert stat.S_IMODE(os.stat(directory).st_mode) == mode  # never "fixed" behind the user's back


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_a_default_directory_that_is_not_a_directory_is_refused(tmp_path: Path, kind: str) -> None:
    directory = tmp_path / f"tmux-{UID}"
    if kind == "symlink":
        real = tmp_path / "elsewhere"
        real.mkdir(mode=0o700)
        directory.symlink_to(real)
    else:
        directory.write_text("")
    with pytest.raises(MyttyError) as caught:
        socketdir.ensure(str(directory / "default"), default=True)
    assert caught.value.code is ErrorCode.UNSAFE_SOCKET_DIRECTORY
    assert "not a directory" in caught.value.message


@needs_root
@pytest.mark.parametrize("default", [True, False])
def test_a_directory_of_another_user_is_refused(tmp_path: Path, default: bool) -> None:
    directory = tmp_path / f"tmux-{UID}"
    directory.mkdir(mode=0o700)
    os.chown(directory, 4242, 4242)
    with pytest.raises(MyttyError) as caught:
        socketdir.ensure(str(directory / "default"), default=default)
    assert caught.value.code is ErrorCode.UNSAFE_SOCKET_DIRECTORY
    assert "uid 4242" in caught.value.message


def test_an_explicit_socket_gets_its_missing_directories_private(tmp_path: Path) -> None:
    sock = tmp_path / "a" / "b" / "c" / "x.sock"
    old = os.umask(0)
    try:
        socketdir.ensure(str(sock), default=False)
    finally:
        os.umask(old)
    for directory in (tmp_path / "a", tmp_path / "a" / "b", sock.parent):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700, directory


@pytest.mark.parametrize(
    ("mode", "accepted"), [(0o755, True), (0o1777, True), (0o777, False), (0o775, False)]
)
def test_an_explicit_socket_directory_others_could_write_is_refused(
    tmp_path: Path, mode: int, accepted: bool
) -> None:
    directory = tmp_path / "shared"
    directory.mkdir()
    os.chmod(directory, mode)
    if accepted:  # like /tmp: the sticky bit keeps others from replacing our socket
        socketdir.ensure(str(directory / "x.sock"), default=False)
        return
    with pytest.raises(MyttyError) as caught:
        socketdir.ensure(str(directory / "x.sock"), default=False)
    assert caught.value.code is ErrorCode.UNSAFE_SOCKET_DIRECTORY
    assert "chmod go-w" in caught.value.message


# -- `mytty up` on a fresh machine ------------------------------------------------------------------
@pytest.mark.tmux
def test_up_on_a_fresh_machine_makes_tmuxs_directory_and_a_working_session(fresh: Mytty) -> None:
    m = fresh
    sock = default_socket(m)
    assert not sock.parent.exists()
    up = run(m, "up", "--no-attach")
    assert up.returncode == 0, up.stderr + m.log()
    assert "Traceback" not in up.stderr
    assert up.stdout.strip() == f"mytty is ready: tmux -S {sock} attach -t mytty"
    assert "mytty: starting the controller" in up.stderr
    info = os.lstat(sock.parent)
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == UID
    assert stat.S_ISSOCK(os.stat(sock).st_mode)
    # Plain tmux (what the user types next) finds the same server.
    listed = subprocess.run(
        [TMUX, "list-sessions", "-F", "#{session_name}"],
        env=m.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "mytty" in listed.stdout.split(), listed.stderr
    (pane,) = [p["paneID"] for p in m.panes()]
    # The README's commands work from where `mytty up` leaves the user: `mytty` and
    # `mytty-ctl` are on PATH in that pane, whatever its directory.
    out = m.root / "which"
    probe = (
        f"{{ command -v mytty; command -v mytty-ctl; mytty --version; pwd; }} "
        f"> {shlex.quote(str(out))}.tmp && mv {shlex.quote(str(out))}.tmp {shlex.quote(str(out))}"
    )
    m.ctl("send", pane, probe, "--enter").ok()
    wait_until(out.exists, 20, message="the probe's output")
    mytty, ctl, version, cwd = out.read_text().splitlines()
    assert os.path.samefile(mytty, MYTTY) and os.path.samefile(ctl, MYTTY_CTL)
    assert version == f"mytty {__version__}"
    assert cwd == str(m.home)
    # Running it again attaches to (here: names) the same session.
    again = run(m, "up", "--no-attach")
    assert again.returncode == 0 and again.stdout == up.stdout
    assert "starting the controller" not in again.stderr
    assert [p["paneID"] for p in m.panes()] == [pane]


@pytest.mark.tmux
def test_scripts_up_on_a_fresh_machine_says_what_it_does(fresh: Mytty) -> None:
    """`scripts/up --no-attach` into a new venv: progress lines, then a re-run without pip."""
    m = fresh
    venv = m.root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    # The dependencies come from the suite's own environment (no network); mytty itself is
    # installed into the new venv by scripts/up, as on a fresh machine.
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "suite.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    m.env["MYTTY_VENV"] = str(venv)
    up = [str(TESTS_DIR.parent / "scripts" / "up"), "--no-attach"]

    def scripts_up() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            up, env=m.env, capture_output=True, text=True, timeout=300, cwd=str(m.home)
        )

    first = scripts_up()
    assert first.returncode == 0, first.stderr + m.log()
    lines = first.stderr.splitlines()
    assert lines[0].startswith(f"mytty: installing mytty and its dependencies into {venv}")
    assert "first run" in lines[0] and len(lines) == 2
    # Which server and why (issue 26): here, plain tmux's default server.
    assert lines[1] == (
        f"mytty: starting the controller on the tmux server at {default_socket(m)} "
        "(your default tmux server)"
    )
    assert first.stdout.strip() == f"mytty is ready: tmux -S {default_socket(m)} attach -t mytty"
    assert (venv / "bin" / "mytty").exists()
    again = scripts_up()
    assert again.returncode == 0 and again.stderr == "" and again.stdout == first.stdout
    # A changed pyproject.toml (new dependencies, entry points) installs again.
    (stamp,) = venv.glob(".mytty-installed-*")
    stamp.write_text("stale\n")
    third = scripts_up()
    assert third.returncode == 0, third.stderr
    assert third.stderr.startswith("mytty: updating the install in"), third.stderr


@pytest.mark.tmux
@pytest.mark.parametrize("command", ["up", "start", "serve"])
def test_an_unsafe_tmux_directory_stops_the_start_with_one_line(fresh: Mytty, command: str) -> None:
    m = fresh
    directory = default_socket(m).parent
    directory.mkdir(mode=0o700)
    os.chmod(directory, 0o755)
    args = [command, "--no-attach"] if command == "up" else [command]
    line = one_failure_line(run(m, *args), "unsafe-socket-directory")
    assert str(directory) in line and "chmod 700" in line
    assert not default_socket(m).exists()  # no tmux server was started
    assert not Path(m.control_socket).exists()


@pytest.mark.tmux
def test_start_with_a_socket_in_new_directories(bare_mytty: Mytty) -> None:
    m = bare_mytty
    sock = m.root / "new" / "dir" / "x.sock"
    try:
        started = run(m, "start", "--tmux-socket", str(sock))
        assert started.returncode == 0, started.stderr + m.log()
        assert stat.S_IMODE(os.stat(sock.parent).st_mode) == 0o700
        assert m.ctl("list").returncode == 0
    finally:
        run(m, "stop")
        subprocess.run([TMUX, "-S", str(sock), "kill-server"], capture_output=True, check=False)


# -- failures are one line ----------------------------------------------------------------------
@pytest.mark.tmux
@pytest.mark.parametrize("command", ["serve", "start", "up"])
def test_an_unusable_mytty_home_is_one_line(bare_mytty: Mytty, command: str) -> None:
    m = bare_mytty
    blocker = m.root / "a-file"
    blocker.write_text("")
    m.env["MYTTY_HOME"] = str(blocker / "home")
    args = [command, "--tmux-socket", m.socket] + (["--no-attach"] if command == "up" else [])
    line = one_failure_line(run(m, *args), "invalid-home")
    assert str(blocker / "home") in line and "MYTTY_HOME" in line


@pytest.mark.tmux
def test_serve_on_a_socket_it_cannot_create_is_one_line(bare_mytty: Mytty) -> None:
    m = bare_mytty
    blocker = m.root / "a-file"
    blocker.write_text("")
    line = one_failure_line(
        run(m, "serve", "--tmux-socket", str(blocker / "sub" / "x.sock")), "tmux-unavailable"
    )
    assert str(blocker) in line


@pytest.mark.tmux
@pytest.mark.parametrize("command", ["serve", "start"])
def test_a_damaged_event_store_is_one_line_and_the_traceback_is_logged(
    bare_mytty: Mytty, command: str
) -> None:
    m = bare_mytty
    m.mytty_home.mkdir(mode=0o700)
    store = m.mytty_home / "events.sqlite3"
    store.write_bytes(b"this is not sqlite\n" * 300)
    line = one_failure_line(run(m, command, "--tmux-socket", m.socket), "invalid-home")
    assert str(store) in line and "move it away" in line
    log = (m.mytty_home / "mytty.log").read_text()
    assert "Traceback" in log and "DatabaseError" in log
    assert not Path(m.control_socket).exists()


@pytest.mark.tmux
def test_a_slow_start_says_so_and_still_starts(bare_mytty: Mytty) -> None:
    m = bare_mytty
    # A tmux that takes a while to answer its first question (a loaded machine, a slow disk).
    slow = m.root / "slow-bin"
    slow.mkdir()
    (slow / "tmux").write_text(f'#!/bin/sh\n[ "$1" = -V ] && sleep 6\nexec {TMUX} "$@"\n')
    (slow / "tmux").chmod(0o755)
    m.env["PATH"] = f"{slow}:{m.env['PATH']}"
    try:
        started = run(m, "start", "--tmux-socket", m.socket)
        assert started.returncode == 0, started.stderr + m.log()
        assert started.stderr.splitlines() == [
            f"mytty: the controller is still starting (log: {m.mytty_home / 'mytty.log'})"
        ]
        assert started.stdout.startswith("mytty started")
    finally:
        run(m, "stop")


# -- the tmux server died under a running controller -----------------------------------------------
@pytest.mark.tmux
def test_up_recovers_when_the_tmux_server_died_under_the_controller(fresh: Mytty) -> None:
    m = fresh
    assert run(m, "up", "--no-attach").returncode == 0
    sock = default_socket(m)
    (old_pane,) = [p["paneID"] for p in m.panes()]
    pid = int(
        subprocess.run(
            [TMUX, "-S", str(sock), "display-message", "-p", "#{pid}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    subprocess.run([TMUX, "-S", str(sock), "kill-server"], check=True)
    wait_until(lambda: not os.path.exists(f"/proc/{pid}"), 10, message="tmux to exit")
    wait_until(lambda: m.ctl("list").returncode == 1, 10, message="the controller to notice")
    assert m.ctl("list").code == "tmux-unavailable"

    # Run from elsewhere with another TMUX_TMPDIR: the controller's own socket is reused.
    m.env["TMUX_TMPDIR"] = str(m.root)
    up = run(m, "up", "--no-attach")
    assert up.returncode == 0, up.stderr + m.log()
    assert f"the tmux server at {sock} is gone; restarting the controller" in up.stderr
    assert up.stdout.strip() == f"mytty is ready: tmux -S {sock} attach -t mytty"
    (pane,) = [p["paneID"] for p in m.panes()]
    assert pane != old_pane
    out = m.root / "id"
    m.ctl("send", pane, f"echo $MYTTY_SURFACE_ID > {shlex.quote(str(out))}", "--enter").ok()
    wait_until(lambda: out.exists() and out.read_text().strip() == pane, 20, message="pane env")
    assert not (m.root / f"tmux-{UID}").exists()


# -- mytty stop and the global environment -----------------------------------------------------
@pytest.mark.tmux
def test_stop_removes_the_global_environment_it_set(mytty: Mytty) -> None:
    def global_env() -> str:
        return mytty.tmux("show-environment", "-g")

    assert "MYTTY_CTL_BIN=" in global_env() and "MYTTY_CONTROL_SOCKET=" in global_env()
    mytty.stop()
    after = global_env()
    assert "MYTTY_CTL_BIN" not in after and "MYTTY_CONTROL_SOCKET" not in after
    # A pane opened now has no stale control socket to talk to.
    made = mytty.tmux("new-window", "-d", "-P", "-F", "#{pane_pid}").strip()
    environ = wait_until(
        lambda: (
            e if (e := Path(f"/proc/{made}/environ").read_bytes()).count(b"TMUX_PANE=") else None
        ),
        10,
        message="the new pane's shell to exec",
    )
    names = {e.split(b"=")[0] for e in environ.split(b"\0")}
    assert not names & {b"MYTTY_CTL_BIN", b"MYTTY_CONTROL_SOCKET"}


# -- --version and completion ------------------------------------------------------------------
def test_version_flags() -> None:
    for argv, name in (([MYTTY, "--version"], "mytty"), ([HOOK, "--version"], "mytty-agent-hook")):
        ran = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, f"{name} {__version__}\n", "")


@pytest.mark.parametrize(("shell", "marker"), [("bash", "complete -o default"), ("zsh", "compdef")])
def test_shell_completion_script_and_answers(shell: str, marker: str) -> None:
    if subprocess.run(["sh", "-c", f"command -v {shell}"], capture_output=True).returncode:
        pytest.fail(f"{shell} is needed for this test")
    # typer finds the shell from the parent process, as when a user types the command.
    shown = subprocess.run(
        [shell, "-c", f"{shlex.quote(MYTTY)} --show-completion; true"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert shown.returncode == 0 and marker in shown.stdout, shown.stderr
    assert "_MYTTY_COMPLETE" in shown.stdout
    env = dict(os.environ, _MYTTY_COMPLETE="complete_bash", COMP_CWORD="1", COMP_WORDS="mytty att")
    answer = subprocess.run([MYTTY], env=env, capture_output=True, text=True, timeout=30)
    assert answer.stdout.split() == ["attention"]
    env.update(COMP_CWORD="2", COMP_WORDS="mytty up --no")
    answer = subprocess.run([MYTTY], env=env, capture_output=True, text=True, timeout=30)
    assert answer.stdout.split() == ["--no-attach"]
