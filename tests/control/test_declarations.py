"""One declaration per command: the registry, the CLI, help, guide and reference page all come
from ``COMMAND`` in each module, and a handler may only answer the codes it declares."""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mytty.cli import ctl
from mytty.control import manual, registry, spec
from mytty.core.errors import ErrorCode

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "mytty-ctl.md"
CONTROL = ROOT / "mytty" / "control"
#: Modules of mytty/control that are not commands.
FRAMEWORK = {
    "__init__",
    "base",
    "spec",
    "targets",
    "registry",
    "manual",
    "pane_args",
    "placement",
    "ports",
}

MODULES = registry.modules()


def _ids(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[1]


# -- the registry ---------------------------------------------------------------------------
def test_every_command_module_is_registered_once() -> None:
    files = {p.stem for p in CONTROL.glob("*.py")} - FRAMEWORK
    names = [module_name for _, module_name in registry.ENTRIES]
    assert sorted(names) == sorted(files)
    assert len(set(names)) == len(names)


def test_registry_names_match_the_declarations() -> None:
    for (cli, _), module in zip(registry.ENTRIES, MODULES, strict=True):
        assert module.COMMAND.name == cli
    wires = [m.COMMAND.wire for m in MODULES]
    assert len(set(wires)) == len(wires)
    assert set(registry.by_wire()) == set(wires)


@pytest.mark.parametrize("module", MODULES, ids=_ids)
def test_each_module_has_the_parts_the_router_uses(module: ModuleType) -> None:
    assert isinstance(module.COMMAND, spec.Command)
    assert callable(module.parse) and inspect.iscoroutinefunction(module.handle)
    assert module.COMMAND.summary and module.COMMAND.doc.strip()
    assert module.__doc__, "the module docstring says what the command does"


# -- the reference page ---------------------------------------------------------------------
def test_committed_reference_page_is_current() -> None:
    page = PAGE.read_text(encoding="utf-8")
    assert manual.update_reference(page) == page, "run scripts/gen-docs"


@pytest.mark.parametrize("module", MODULES, ids=_ids)
def test_reference_lists_exactly_the_declared_codes(module: ModuleType) -> None:
    command: spec.Command = module.COMMAND
    page = PAGE.read_text(encoding="utf-8")
    section = page[
        page.index(manual.begin_marker(command)) : page.index(manual.end_marker(command))
    ]
    errors_line = next(line for line in section.splitlines() if line.startswith("Errors: "))
    listed = errors_line.removeprefix("Errors: ").split(". Before connecting")[0].rstrip(".")
    assert [c.strip().strip("`") for c in listed.split(",")] == list(command.errors)


# -- a handler answers only its declared codes ----------------------------------------------
def _codes_raised_in(module: ModuleType) -> set[str]:
    """Codes the module itself raises: ``MyttyError(ErrorCode.X, …)`` or ``fail(codes.X, …)``."""
    tree = ast.parse(inspect.getsource(module))
    found: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        if (
            name in ("MyttyError", "fail")
            and isinstance(first, ast.Attribute)
            and isinstance(first.value, ast.Name)
            and first.value.id in ("ErrorCode", "codes")
        ):
            found.add(ErrorCode[first.attr].value)
    return found


def test_the_static_check_sees_raises() -> None:
    from mytty.control import agent_send, status

    # job-lost: its pane is gone; invalid-request: the job is queued (admission).
    assert _codes_raised_in(agent_send) == {"job-lost", "invalid-request"}
    assert {"usage", "invalid-status"} <= _codes_raised_in(status)


@pytest.mark.parametrize("module", MODULES, ids=_ids)
def test_a_handler_names_only_declared_codes(module: ModuleType) -> None:
    command: spec.Command = module.COMMAND
    allowed = set(command.errors) | set(command.client_errors)
    assert _codes_raised_in(module) <= allowed


class _Raising:
    """A stand-in command module whose handler raises ``code``."""

    def __init__(self, code: ErrorCode) -> None:
        self.COMMAND = spec.Command(
            name=None, wire="frob", summary="s", errors=(ErrorCode.JOB_LOST.value,), doc="d"
        )
        self._code = code

    def parse(self, request: Any) -> None:
        return None

    async def handle(self, ctx: Any, params: Any) -> Any:
        from mytty.core.errors import MyttyError

        raise MyttyError(self._code, "boom")


@pytest.mark.parametrize("strict", [False, True])
def test_the_router_catches_an_undeclared_code(
    strict: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mytty.daemon.server.router import STRICT_ERRORS_VAR, ControlRouter

    monkeypatch.setenv(STRICT_ERRORS_VAR, "1" if strict else "0")
    from tests.control.fakes import FakeController

    router = ControlRouter(ctx=FakeController())

    def answer(code: ErrorCode) -> dict[str, Any]:
        router._commands = {"frob": _Raising(code)}  # type: ignore[dict-item]
        return dict(asyncio.run(router.dispatch(b'{"type":"frob"}', 0)))

    reply = answer(ErrorCode.PANE_NOT_FOUND)
    if strict:
        assert reply["code"] == "internal-error"
        assert "undeclared error code pane-not-found from frob" in reply["message"]
    else:
        assert reply["code"] == "pane-not-found"
    assert answer(ErrorCode.JOB_LOST)["code"] == "job-lost"


def test_the_e2e_harness_runs_the_controller_strict() -> None:
    from tests.support import harness

    assert 'MYTTY_STRICT_ERRORS="1"' in inspect.getsource(harness)


# -- a declaration alone yields parsing, help, guide and docs -----------------------------------
FROB = spec.Command(
    name="frob",
    wire="frobnicate",
    summary="frobnicate a pane",
    args=(
        spec.PANE,
        spec.Arg("LEVEL", "level", "how hard", choices=("low", "high"), default="low"),
    ),
    options=(
        spec.Option("--times", "N", "times", "how often", kind=spec.SECONDS, default=1.0),
        spec.Option("--loud", None, "loud", "shout"),
        spec.Option("--dir", "DIR", "directory", "where", kind=spec.PATH),
    ),
    errors=(ErrorCode.PANE_NOT_FOUND.value, ErrorCode.INVALID_REQUEST.value),
    client_errors=(ErrorCode.USAGE.value,),
    guide="Frobnicates the pane, hard or soft.",
    doc='Frobnicates `PANE`. Request `{"type":"frobnicate"}`.',
)


def test_a_declaration_alone_yields_cli_parsing(tmp_path: Path) -> None:
    os.chdir(tmp_path)
    request, timeout, _ = ctl.build_request(FROB, ["P1", "high", "--loud", "--dir", "sub"])
    assert request == {
        "type": "frobnicate",
        "paneID": "P1",
        "level": "high",
        "times": 1.0,
        "loud": True,
        "directory": str(tmp_path / "sub"),
    }
    assert timeout == 5.0
    assert ctl.build_request(FROB, ["P1", "--times=3"])[0]["times"] == 3.0
    for bad in (["P1", "medium"], ["P1", "--bogus"], [], ["P1", "low", "x"], ["P1", "--times"]):
        with pytest.raises(ctl.CtlError) as err:
            ctl.build_request(FROB, bad)
        assert err.value.code == "usage", bad
    with pytest.raises(ctl.HelpRequested):
        ctl.build_request(FROB, ["P1", "--help"])


def test_a_declaration_alone_yields_help_guide_and_docs() -> None:
    help_text = manual.command_help(FROB)
    assert help_text.startswith(
        "usage: mytty-ctl frob PANE [low|high] [--times N] [--loud] [--dir DIR]\n"
    )
    assert "--loud" in help_text and "how hard" in help_text and "default low" in help_text
    assert manual.help_text("frob", [FROB]) == help_text
    assert "  frob PANE [low|high]" in manual.usage_text([FROB])
    guide = manual.guide_text([FROB])
    assert "  frob PANE [low|high] [--times N] [--loud] [--dir DIR]\n" in guide
    assert "      Frobnicates the pane, hard or soft." in guide
    page = f"intro\n{manual.begin_marker(FROB)}\nold\n{manual.end_marker(FROB)}\noutro\n"
    fresh = manual.update_reference(page, [FROB])
    assert "old" not in fresh and fresh.startswith("intro\n") and fresh.endswith("outro\n")
    assert "### `frob PANE [low|high] [--times N] [--loud] [--dir DIR]`" in fresh
    assert "Errors: `pane-not-found`, `invalid-request`." in fresh
    with pytest.raises(ValueError, match=r"no .* markers for mytty-ctl frob"):
        manual.update_reference("no markers", [FROB])


def test_a_group_help_lists_its_subcommands() -> None:
    text = manual.help_text("agent")
    for sub in registry.subcommands("agent"):
        assert f"  agent {sub}" in text
