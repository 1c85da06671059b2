"""The layering rules of docs/explanation/architecture.md, checked instead of hoped for."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from mytty.control import registry
from mytty.core.errors import ErrorCode

PKG = Path(__file__).resolve().parent.parent / "mytty"
STDLIB = set(sys.stdlib_module_names)

# package -> the mytty packages it may import (besides itself)
ALLOWED = {
    "core": set(),
    "protocol": {"core"},
    "tmux": {"core", "protocol"},
    "integrations": {"core", "protocol"},
    # control sits above tmux (docs/explanation/architecture.md): its ports are typed against
    # the TmuxPort Protocol and PaneRow, though no handler spells tmux syntax.
    "control": {"core", "protocol", "tmux"},
    "hook": {"core", "protocol"},
    "daemon": {"core", "protocol", "tmux", "control", "integrations"},
    "verify": {"core", "protocol", "integrations", "tmux"},
    "cli": {"core", "protocol", "daemon", "integrations", "tmux", "control", "verify"},
}
THIRD_PARTY_ALLOWED = {
    "core": set(),
    "protocol": set(),
    "hook": set(),
    "tmux": {"libtmux"},
    "control": set(),
    "integrations": {"tomlkit", "typer", "rich"},
    "daemon": {"psutil", "tomlkit"},  # tomlkit: config.toml (mytty.daemon.config.load)
    "verify": set(),
    "cli": {"typer", "rich"},
}


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def modules() -> list[tuple[str, Path]]:
    return [(sub, path) for sub in ALLOWED for path in sorted((PKG / sub).rglob("*.py"))]


@pytest.mark.parametrize(("layer", "path"), modules(), ids=lambda v: str(v))
def test_layering(layer: str, path: Path) -> None:
    for name in imports_of(path):
        top = name.split(".")[0]
        if top == "mytty":
            parts = name.split(".")
            if len(parts) == 1:
                continue
            target = parts[1]
            assert target == layer or target in ALLOWED[layer], (
                f"{path.relative_to(PKG.parent)} ({layer}) imports {name}"
            )
        elif top not in STDLIB and top != "__future__":
            assert top in THIRD_PARTY_ALLOWED[layer], (
                f"{path.relative_to(PKG.parent)} ({layer}) imports third-party {name}"
            )


def test_only_the_tmux_package_imports_libtmux() -> None:
    offenders = [
        str(p.relative_to(PKG.parent))
        for p in PKG.rglob("*.py")
        if p.relative_to(PKG).parts[0] != "tmux"
        and any(n.split(".")[0] == "libtmux" for n in imports_of(p))
    ]
    assert offenders == []


def test_package_init_imports_nothing() -> None:
    assert imports_of(PKG / "__init__.py") == []


def test_every_command_declares_known_error_codes() -> None:
    known = {code.value for code in ErrorCode}
    for module in registry.modules():
        errors = module.COMMAND.errors
        assert errors, module.__name__
        assert set(errors) <= known, module.__name__


def test_reference_documents_every_error_code() -> None:
    doc = (PKG.parent / "docs" / "reference" / "errors.md").read_text()
    missing = [code.value for code in ErrorCode if f"`{code.value}`" not in doc]
    assert missing == []


# control/ holds one module per command (like kitty's rc/), so it may grow past the rule.
FLAT_FOLDER_EXCEPTIONS = {"control"}
MAX_MODULES_PER_FOLDER = 20


def test_no_flat_folder_holds_more_than_twenty_modules() -> None:
    crowded = {
        str(folder.relative_to(PKG.parent)): count
        for folder in [PKG, *(p for p in PKG.rglob("*") if p.is_dir())]
        if folder.name not in FLAT_FOLDER_EXCEPTIONS
        and (count := len(list(folder.glob("*.py")))) > MAX_MODULES_PER_FOLDER
    }
    assert crowded == {}
