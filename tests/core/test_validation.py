"""Validation of spawn fields: label, model, task, command text, worktree branch."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.validation import (
    validate_command_text,
    validate_label,
    validate_model,
    validate_task,
    validate_worktree_branch,
)


@pytest.mark.parametrize(
    "label",
    ["", "investigate-a", "レビュー担当", "a b c", "x" * 100, "🚀" * 100, "é" * 100],
)
def test_valid_labels(label: str) -> None:
    assert validate_label(label) is None


@pytest.mark.parametrize(
    "label",
    [
        "x" * 101,
        "🚀" * 101,
        "line\nbreak",
        "tab\there",
        "nul\0",
        "del\x7f",
        "c1\x85",  # NEL is Cc
        "zwj\u200d",  # Cf
        "bidi\u202e",  # Cf
        "bom\ufeff",  # Cf
        "lone\ud800",  # not a scalar
    ],
)
def test_invalid_labels(label: str) -> None:
    assert isinstance(validate_label(label), str)


@pytest.mark.parametrize(
    "model", ["sonnet", "gpt-5.1-codex", "claude-opus-4@2025", "m" * 100, "模型"]
)
def test_valid_models(model: str) -> None:
    assert validate_model(model) is None


@pytest.mark.parametrize(
    "model",
    [
        "",
        "m" * 101,
        "a b",
        "a\tb",
        "a\nb",
        "a\u00a0b",
        "a\u3000b",
        "a\u2028b",
        "a\u200db",
        "a\x1bb",
    ],
)
def test_invalid_models(model: str) -> None:
    assert isinstance(validate_model(model), str)


def test_task_and_command_text_only_need_to_be_non_empty() -> None:
    assert validate_task("") is not None
    assert validate_task("\n") is None
    assert validate_task("x\x00y") is None
    assert validate_command_text("") is not None
    assert validate_command_text(" ") is None


@pytest.mark.parametrize(
    "branch",
    ["a", "feat/x", "v1.2", "a_b-c", "x.lock1", "feat/x.y/z", "A/B/C", "b" * 100, "a-", "a/-b"],
)
def test_valid_worktree_branches(branch: str) -> None:
    assert validate_worktree_branch(branch) is None


@pytest.mark.parametrize(
    "branch",
    [
        "",
        "b" * 101,
        "-x",
        ".x",
        "/x",
        "x/",
        "x.",
        "x.lock",
        "feat/x.lock",
        "a..b",
        "a//b",
        "a b",
        "ä",
        "a~b",
        "a:b",
        "a^b",
        "a@{b",
        "a\\b",
        "a*",
        "a\nb",
    ],
)
def test_invalid_worktree_branches(branch: str) -> None:
    assert isinstance(validate_worktree_branch(branch), str)


@given(st.text(max_size=120))
def test_branch_rule_matches_its_definition(branch: str) -> None:
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-")
    expected_ok = (
        0 < len(branch) <= 100
        and set(branch) <= allowed
        and branch[0] not in "-./"
        and not branch.endswith(("/", ".", ".lock"))
        and ".." not in branch
        and "//" not in branch
    )
    assert (validate_worktree_branch(branch) is None) == expected_ok


@given(st.text(max_size=110))
def test_label_rule_counts_scalars_and_rejects_controls(label: str) -> None:
    import unicodedata

    expected_ok = len(label) <= 100 and all(
        unicodedata.category(c) not in ("Cc", "Cf", "Cs") for c in label
    )
    assert (validate_label(label) is None) == expected_ok
