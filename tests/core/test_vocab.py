"""The vocabularies' Literal types (for the type checker) hold the same words as the tuples."""

from __future__ import annotations

import ast
from pathlib import Path

from mytty.core import vocab

SOURCE = Path(vocab.__file__).read_text(encoding="utf-8")


def _literals() -> dict[str, tuple[str, ...]]:
    found = {}
    for node in ast.walk(ast.parse(SOURCE)):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "Literal"
        ):
            elts = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else []
            words = tuple(str(e.value) for e in elts if isinstance(e, ast.Constant))
            target = node.targets[0]
            assert isinstance(target, ast.Name)
            found[target.id] = words
    return found


def test_literal_types_match_the_tuples() -> None:
    literals = _literals()
    assert literals["Side"] + (vocab.AUTO,) == vocab.DIRECTIONS
    assert literals["AccessMode"] == vocab.ACCESS_MODES
    assert literals["FixedAccessMode"] == tuple(m for m in vocab.ACCESS_MODES if m != vocab.INHERIT)
    assert literals["JobWaitCondition"] == vocab.JOB_WAIT_CONDITIONS
    assert literals["IntegrationStatus"] == vocab.INTEGRATION_STATUSES


def test_integration_status_type_is_the_vocabulary() -> None:
    from typing import get_args

    from mytty.integrations.common import Status

    assert get_args(Status) == vocab.INTEGRATION_STATUSES


def test_the_enums_take_the_provider_names() -> None:
    from mytty.core.events import AgentProvider, WorkerProvider

    assert tuple(p.value for p in AgentProvider) == vocab.PROVIDERS
    assert {p.value for p in WorkerProvider} == set(vocab.WORKER_PROVIDERS)
