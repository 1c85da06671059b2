"""`mytty attention` names what every kind of item asks of the human."""

from __future__ import annotations

from mytty.cli.main import _NEEDS
from mytty.core.attention import AttentionKind


def test_every_attention_kind_has_a_short_label() -> None:
    assert set(_NEEDS) == {kind.value for kind in AttentionKind}
    assert _NEEDS["launch-failure"] == "not started"
    assert all(len(label) <= 12 for label in _NEEDS.values())  # fits the narrow layout
