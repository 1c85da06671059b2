"""mytty-ctl is called in loops by agents: its path imports only the stdlib, the light
declaration modules and the one command module it runs, never the controller's stack, the
handlers' dependencies, ``dataclasses``, the ``ErrorCode`` enum or heavy third-party modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import FakeController, ctl_env

PANE = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
FORBIDDEN = (
    "libtmux",
    "typer",
    "click",
    "rich",
    "psutil",
    "tomlkit",
    "asyncio",
    "dataclasses",
    "datetime",
    "mytty.daemon",
    "mytty.tmux",
    "mytty.control.base",
    "mytty.control.pane_args",
    "mytty.core.errors",
    "mytty.core.events",
    "mytty.core.jobs.tracker",
    "mytty.protocol.control",
    "mytty.protocol.wire",
    "mytty.integrations",
    "mytty.hook",
)
#: What every command path may load from mytty.control besides its own command module.
CONTROL_FRAME = {"mytty.control", "mytty.control.registry", "mytty.control.spec"}


def imported_modules(importtime_stderr: str) -> set[str]:
    """Module names from ``python -X importtime`` output."""
    names = set()
    for line in importtime_stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name)
    return names


def forbidden_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))


@pytest.mark.parametrize(
    "argv",
    [
        ["list"],
        ["read", PANE],
        ["send", PANE, "hello", "--enter"],
        ["send-key", PANE, "c", "--modifiers", "control"],
        ["split", PANE, "right", "--command", "echo hi"],
        ["new-tab", "--cwd", "/tmp"],
        ["status", "working", "--pane", PANE],
        ["focus", PANE],
        ["close-pane", PANE],
        ["--help"],
        ["guide"],
    ],
)
def test_ctl_path_imports_nothing_heavy(argv: list[str], fake: FakeController) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mytty.cli.ctl", *argv],
        env=ctl_env(fake.path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = imported_modules(proc.stderr)
    assert "mytty.cli.transport" in modules  # the probe really saw the imports
    assert "_socket" in modules
    assert forbidden_in(modules) == []
    if argv[0] not in ("--help", "guide"):
        assert fake.connections == 1
        # Only the one command's declaration was imported, by name.
        from mytty.control import registry

        module = next(m for name, m in registry.ENTRIES if name == argv[0])
        control = {m for m in modules if m.startswith("mytty.control")}
        # The commands whose only field names their target share their Params (targets.py).
        source = (Path(registry.__file__).parent / f"{module}.py").read_text()
        shared = {"mytty.control.targets"} if "mytty.control.targets" in source else set()
        assert control == CONTROL_FRAME | {f"mytty.control.{module}"} | shared


@pytest.mark.parametrize("argv", [["list"], ["read", PANE]])
def test_the_loop_commands_skip_typing(argv: list[str], fake: FakeController) -> None:
    """A lead runs list/read in loops: not even ``typing`` (a tenth of a run), the ``json``
    package or ``socket.py`` is imported (mytty.protocol.jsonlite and ``_socket`` do)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mytty.cli.ctl", *argv],
        env=ctl_env(fake.path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = imported_modules(proc.stderr)
    assert "mytty.cli.transport" in modules  # the probe really saw the command's imports
    assert not {"typing", "json", "socket", "selectors"} & modules


_PROBE = """
import json, sys
from mytty.cli import ctl
code = ctl.run(sys.argv[1:])
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def test_sys_modules_after_a_command(fake: FakeController) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, "list"],
        env=ctl_env(fake.path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    modules = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert "_socket" in modules and "mytty.cli.ctl" in modules
    assert forbidden_in(modules) == []


def test_every_command_module_is_light_at_import() -> None:
    # mytty-ctl may import any of them; their handlers import the rest when they run.
    probe = (
        "import json, sys\n"
        "from mytty.control import registry\n"
        "registry.modules()\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30, check=True
    )
    modules = set(json.loads(proc.stdout))
    assert "mytty.control.agent_spawn" in modules
    assert forbidden_in(modules) == []


_NO_COMPILE = """
import contextlib, json, socket, sys, typing  # what mytty-ctl loads anyway (functools compiles)
compiled = []
sys.addaudithook(lambda event, args: compiled.append(args[1]) if event == "compile" else None)
from mytty.control import registry
registry.modules()
print(compiled)
"""


def test_importing_the_command_modules_compiles_no_code() -> None:
    # A NamedTuple or dataclass generates and compiles code at import time; in mytty-ctl that
    # made one command's import seven times slower. Params classes are plain slotted classes.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    warm = subprocess.run([sys.executable, "-c", _NO_COMPILE], env=env, capture_output=True)
    assert warm.returncode == 0, warm.stderr  # (this run also writes the .pyc files)
    proc = subprocess.run(
        [sys.executable, "-c", _NO_COMPILE], capture_output=True, text=True, timeout=30, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_the_checker_notices_a_forbidden_import(fake: FakeController) -> None:
    # Guard against a vacuous pass: the same parsing flags a heavy import when there is one.
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import typer"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert "typer" in forbidden_in(imported_modules(proc.stderr))
