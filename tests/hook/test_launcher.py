"""The ``-I -S`` launcher script: its text, and that it runs the real helper."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import mytty
from mytty.core.hook_launcher import render_launcher

from .conftest import FakeEventServer, load_payloads, pane_env, run_hook

PACKAGE_PARENT = str(Path(mytty.__file__).resolve().parents[1])
PAYLOAD = load_payloads("claude-code")["captured"]["Stop"]


def write_launcher(directory: Path, python: str) -> Path:
    path = directory / "mytty-agent-hook"
    path.write_text(render_launcher(python, PACKAGE_PARENT))
    path.chmod(0o755)
    return path


def test_plain_interpreter_path_uses_a_direct_shebang() -> None:
    text = render_launcher("/opt/py/bin/python3", "/srv/app")
    assert text.splitlines()[0] == "#!/opt/py/bin/python3 -IS"
    assert "sys.path.insert(0, '/srv/app')" in text
    assert "from mytty.hook.main import main" in text
    compile(text, "launcher", "exec")


@pytest.mark.parametrize("python", ["/opt/my py/bin/python3", "/" + "p" * 130 + "/python3"])
def test_awkward_interpreter_paths_use_the_sh_trampoline(python: str) -> None:
    text = render_launcher(python, "/srv/app")
    assert text.startswith("#!/bin/sh\n")
    assert f"'''exec' '{python}' -IS \"$0\" \"$@\"" in text
    compile(text, "launcher", "exec")  # the trampoline is a string literal for Python


@pytest.mark.parametrize(("python", "parent"), [("python3", "/srv"), ("/usr/bin/python3", "srv")])
def test_relative_paths_are_refused(python: str, parent: str) -> None:
    with pytest.raises(ValueError):
        render_launcher(python, parent)


def test_the_launcher_delivers_an_event(sock_dir: Path, event_server: FakeEventServer) -> None:
    launcher = write_launcher(sock_dir, sys.executable)
    done = run_hook(["claude-code"], PAYLOAD, pane_env(event_server.path), executable=launcher)
    assert (done.returncode, done.stderr) == (0, b"")
    assert event_server.envelopes()[0]["event"]["kind"] == "succeeded"


def test_the_trampoline_launcher_delivers_an_event(
    sock_dir: Path, event_server: FakeEventServer
) -> None:
    spaced = sock_dir / "with space"
    spaced.mkdir()
    python = spaced / "python3"
    os.symlink(sys.executable, python)
    launcher = write_launcher(sock_dir, str(python))
    assert launcher.read_text().startswith("#!/bin/sh\n")
    done = run_hook(
        ["codex"],
        load_payloads("codex")["captured"]["Stop"],
        pane_env(event_server.path),
        executable=launcher,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert len(event_server.lines) == 1


def test_the_launcher_ignores_python_environment_variables(
    sock_dir: Path, event_server: FakeEventServer
) -> None:
    # -I: a PYTHONPATH pointing at a shadowing `mytty` package must not be picked up.
    shadow = sock_dir / "shadow" / "mytty"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit(2)\n")
    launcher = write_launcher(sock_dir, sys.executable)
    env = pane_env(event_server.path, PYTHONPATH=str(shadow.parent))
    done = run_hook(["claude-code"], PAYLOAD, env, executable=launcher)
    assert (done.returncode, done.stderr) == (0, b"")
