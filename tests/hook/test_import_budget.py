"""The helper's import path: stdlib + core + protocol only, and nothing slow to import."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import mytty

from .conftest import FakeEventServer, load_payloads, pane_env

HOOK_DIR = Path(mytty.__file__).resolve().parent / "hook"
PACKAGE_PARENT = str(HOOK_DIR.parents[1])
ALLOWED_MYTTY = ("mytty.core", "mytty.protocol", "mytty.hook")

# Imported modules that would each add a noticeable share of the helper's start-up time.
SLOW_MODULES = {
    "dataclasses",
    "inspect",
    "typing",
    "datetime",
    "asyncio",
    "uuid",
    "subprocess",
    "logging",
    "argparse",
    "pathlib",
    "importlib.metadata",
    "mytty.core.events",
    "mytty.core.errors",
    "mytty.protocol.envelope",
}
# Stdlib packages the floor (`python -I -c 'import json, socket'`) loads and the helper does
# without (mytty.protocol.jsonlite, _socket): an ordinary delivery starts faster than that floor.
FLOOR_MODULES = {"json", "socket", "selectors", "re", "enum", "types", "functools", "collections"}
THIRD_PARTY = {"typer", "rich", "libtmux", "psutil", "tomlkit", "click"}

# Deliver one event through main() in a fresh isolated interpreter, then list sys.modules.
_PROBE = """
import sys
sys.path.insert(0, {parent!r})
sys.argv = ["mytty-agent-hook", {provider!r}]
from mytty.hook.main import main
status = main()
modules = sorted(sys.modules)
import json
with open({report!r}, "w") as report:
    json.dump({{"status": status, "modules": modules}}, report)
"""


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(HOOK_DIR.rglob("*.py")), ids=lambda p: p.name)
def test_hook_modules_import_only_stdlib_core_and_protocol(path: Path) -> None:
    for name in _imports(path):
        top = name.split(".")[0]
        if top == "mytty":
            # The package itself only for __version__: its __init__ imports nothing.
            assert name == "mytty" or name.startswith(ALLOWED_MYTTY), f"{path.name}: {name}"
        else:
            assert top in sys.stdlib_module_names or top == "__future__", f"{path.name}: {name}"


def _loaded_modules(provider: str, payload: dict, sock_dir: Path) -> list[str]:
    server = FakeEventServer(sock_dir / "probe.sock")
    report_path = sock_dir / "modules.json"
    try:
        code = _PROBE.format(parent=PACKAGE_PARENT, provider=provider, report=str(report_path))
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", code],
            input=json.dumps(payload).encode(),
            env=pane_env(server.path),
            capture_output=True,
            check=False,
            timeout=20,
        )
    finally:
        server.stop()
    report = json.loads(report_path.read_text())
    assert done.stderr == b"", done.stderr
    assert report["status"] == 0
    assert len(server.lines) == 1  # the probe really went through the delivery path
    return report["modules"]


@pytest.mark.parametrize(
    ("provider", "payload"),
    [
        ("claude-code", load_payloads("claude-code")["captured"]["PermissionRequest"]),
        ("codex", load_payloads("codex")["captured"]["PostToolUse"]),
        ("cursor", load_payloads("cursor")["reference"]["U2"]),
        ("opencode", load_payloads("opencode")["reference"]["O2"]),
        ("antigravity", load_payloads("antigravity")["reference"]["A1"]),
    ],
)
def test_delivery_path_skips_slow_and_third_party_modules(
    provider: str, payload: dict, sock_dir: Path
) -> None:
    modules = set(_loaded_modules(provider, payload, sock_dir))
    assert not modules & SLOW_MODULES
    assert not modules & FLOOR_MODULES, sorted(modules & FLOOR_MODULES)
    assert not {m.split(".")[0] for m in modules} & THIRD_PARTY
    mytty_modules = {m for m in modules if m.split(".")[0] == "mytty"}
    assert all(m == "mytty" or m.startswith(ALLOWED_MYTTY) for m in mytty_modules)
    assert f"mytty.hook.adapters.{provider.split('-')[0]}" in modules
    other = {"claude", "codex", "cursor", "opencode", "antigravity"} - {provider.split("-")[0]}
    assert not {f"mytty.hook.adapters.{name}" for name in other} & modules


def test_delivery_path_does_not_load_openssl(sock_dir: Path) -> None:
    payload = load_payloads("codex")["captured"]["PostToolUse"]
    modules = set(_loaded_modules("codex", payload, sock_dir))
    assert "hashlib" not in modules and "_hashlib" not in modules
