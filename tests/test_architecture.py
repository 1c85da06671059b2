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
    "cli": {"core", "protocol", "daemon", "integrations", "tmux", "control", "verify", "web"},
    # `mytty web`: a client like the CLI (its requests and transport), a layer of its own so
    # that cli/ keeps to 20 modules; cli/main.py only registers its command.
    "web": {"core", "protocol", "daemon", "integrations", "tmux", "control", "verify", "cli"},
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
    "web": {"typer", "rich", "aiohttp", "segno"},
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


# -- no import circles ----------------------------------------------------------------------------
def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imported(node: ast.Import | ast.ImportFrom, importer: str) -> list[str]:
    """The mytty modules one import statement names (a package when no module matches)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    base = node.module or ""
    if node.level:  # relative: resolved against the importing module's package
        package = importer.split(".")
        if MODULES[importer].name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    targets = [f"{base}.{a.name}" for a in node.names]
    return [t if t in MODULES else base for t in targets if t in MODULES or base in MODULES]


def import_graph() -> dict[str, set[str]]:
    """Every mytty module -> the mytty modules it imports anywhere: at the top, inside
    functions and under ``TYPE_CHECKING`` (a lazy import is still a dependency)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                targets.update(_imported(node, name))
        graph[name] = targets - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle_anywhere() -> None:
    assert circles(import_graph()) == []


def test_the_circle_check_sees_circles_and_every_kind_of_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [["a", "b", "c"]]
    edges = import_graph()
    assert "mytty.cli.client" in edges["mytty.cli.controller"]  # at the top
    assert "mytty.daemon.app" in edges["mytty.cli.controller"]  # inside a function
    assert "mytty.daemon.home" in edges["mytty.cli.client"]  # under TYPE_CHECKING
    assert "mytty.cli.popup" in edges["mytty.cli.attention"]  # `from package import module`


# -- no borrowed private helpers in the CLI -------------------------------------------------------
def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_borrowings(source: str, importer: str) -> list[str]:
    """Private names (``_x``) a module takes from other mytty modules: imported by name, or
    read as an attribute of an imported mytty module (``main._die``)."""
    tree = ast.parse(source)
    modules: set[str] = set()  # local names bound to mytty modules
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mytty"):
            for alias in node.names:
                if _private(alias.name) and node.module != importer:
                    found.append(f"from {node.module} import {alias.name}")
                elif f"{node.module}.{alias.name}" in MODULES:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name.startswith("mytty"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = ast.unparse(node.value)
            if (owner in modules or owner in MODULES) and owner != importer:
                found.append(f"{owner}.{node.attr}")
    return found


@pytest.mark.parametrize("path", sorted((PKG / "cli").rglob("*.py")), ids=lambda p: p.name)
def test_no_cli_module_borrows_a_private_name(path: Path) -> None:
    assert private_borrowings(path.read_text(), _module_name(path)) == []


def test_the_private_name_check_sees_both_ways() -> None:
    source = (
        "from mytty.cli import main\n"
        "from mytty.cli.integrations import _run, app\n"
        "from mytty import __version__\n"
        "import mytty.cli.ctl\n"
        "def f(self):\n"
        "    main._die('x'); self._x; mytty.cli.ctl._fail('a', 'b')\n"
    )
    assert private_borrowings(source, "mytty.cli.probe") == [
        "from mytty.cli.integrations import _run",
        "main._die",
        "mytty.cli.ctl._fail",
    ]
