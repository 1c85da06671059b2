"""No function in mytty/ is longer than 80 lines, unless a comment says why it reads better whole.

A function's length runs from its ``def`` line to its last line (decorators not counted). A
long function passes when a comment holding ``long on purpose: <why>`` sits on the comment
lines just above it (above its decorators, if any) or on its first body line, which is any
line after the ``def`` up to its first statement::

    # long on purpose: one table of cases, each a few lines; split, the order is lost
    def classify(...):

Nothing else is exempt: methods, nested functions, async functions and lambdas all count.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "mytty"
MAX_LINES = 80
MARKER = re.compile(r"#\s*long on purpose:\s*\S")


_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass(frozen=True, slots=True)
class Long:
    """A function over the limit: where it is and how long."""

    name: str
    line: int
    lines: int
    marked: bool


def long_functions(source: str, path: str = "<source>", limit: int = MAX_LINES) -> list[Long]:
    """Every function of ``source`` longer than ``limit`` lines, marked or not."""
    tree = ast.parse(source, path)
    comments: dict[int, str] | None = None  # tokenized only for a file with a long function
    found: list[Long] = []

    def visit(node: ast.AST, scope: str) -> None:
        nonlocal comments
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{scope}{child.name}.")
            elif isinstance(child, _Function):
                name = child.name if not isinstance(child, ast.Lambda) else "<lambda>"
                assert child.end_lineno is not None
                lines = child.end_lineno - child.lineno + 1
                if lines > limit:
                    comments = _comment_lines(source) if comments is None else comments
                    marked = _marked(child, comments)
                    found.append(Long(f"{scope}{name}", child.lineno, lines, marked))
                visit(child, f"{scope}{name}.<locals>.")
            else:
                visit(child, scope)

    visit(tree, "")
    return found


def _comment_lines(source: str) -> dict[int, str]:
    """Line number → the comment on that line (real comments only, not ``#`` in strings)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {tok.start[0]: tok.string for tok in tokens if tok.type == tokenize.COMMENT}


def _marked(node: _Function, comments: dict[int, str]) -> bool:
    if isinstance(node, ast.Lambda):
        return False  # no room for a comment that is its own
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    above = []
    line = first - 1
    while line in comments:  # the comment block right above (a blank line ends it)
        above.append(comments[line])
        line -= 1
    body = [comments[n] for n in range(node.lineno, node.body[0].lineno + 1) if n in comments]
    return any(MARKER.search(text) for text in above + body)


@functools.cache
def _scan() -> dict[str, Long]:
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        for long in long_functions(path.read_text(), str(path)):
            found[f"{rel}:{long.name}"] = long
    return found


def test_no_function_in_mytty_is_over_80_lines_without_a_reason() -> None:
    unmarked = {
        name: f"{long.lines} lines (line {long.line})"
        for name, long in _scan().items()
        if not long.marked
    }
    assert not unmarked, (
        f"over {MAX_LINES} lines: name their steps, or say why it reads better whole "
        f"(a '# long on purpose: <why>' comment just above the def): {unmarked}"
    )


# -- the checker itself -------------------------------------------------------------------------


def _function(lines: int, *, above: str = "", first: str = "", indent: str = "") -> str:
    """A function of exactly ``lines`` lines (def included)."""
    body = [f"{indent}    x = {i}" for i in range(lines - 1)]
    if first:
        body[0] += f"  {first}"
    head = [f"{indent}{above}"] if above else []
    return "\n".join([*head, f"{indent}def f():", *body]) + "\n"


def test_80_lines_pass_and_81_fail() -> None:
    assert long_functions(_function(80)) == []
    assert long_functions(_function(81)) == [Long("f", 1, 81, marked=False)]


@pytest.mark.parametrize(
    ("above", "first", "marked"),
    [
        ("# long on purpose: one table, in order", "", True),
        ("", "# long on purpose: one table, in order", True),
        ("# long on purpose:", "", False),  # a reason is required
        ("# long, on purpose", "", False),
        ("# why not", "", False),
    ],
)
def test_a_long_function_passes_only_with_a_reason(above: str, first: str, marked: bool) -> None:
    [long] = long_functions(_function(90, above=above, first=first))
    assert long.marked is marked


def test_a_reason_must_be_right_above_not_anywhere() -> None:
    source = "# long on purpose: far away\n\n" + _function(90)
    [long] = long_functions(source)
    assert not long.marked
    in_a_string = 'def f():\n    s = "# long on purpose: not a comment"\n' + "    x = 1\n" * 88
    [long] = long_functions(in_a_string)
    assert not long.marked


def test_methods_nested_and_decorated_functions_count() -> None:
    method = "class C:\n" + _function(85, indent="    ")
    assert [x.name for x in long_functions(method)] == ["C.f"]
    nested = "def outer():\n" + _function(85, indent="    ")
    assert [x.name for x in long_functions(nested)] == ["outer", "outer.<locals>.f"]
    decorated = "# long on purpose: a reason above the decorator\n@staticmethod\n" + _function(85)
    [long] = long_functions(decorated)
    assert long.marked and long.line == 3
    asynchronous = _function(85).replace("def f", "async def f")
    assert [x.name for x in long_functions(asynchronous)] == ["f"]
