"""Every kind of attention item has one short word for what it asks of the human."""

from __future__ import annotations

from mytty.core.attention.items import NEED_WORDS, AttentionKind, need_word


def test_every_attention_kind_has_a_short_label() -> None:
    assert set(NEED_WORDS) == {kind.value for kind in AttentionKind}
    assert need_word("launch-failure") == "not started"
    assert need_word("a-kind-added-later") == "a-kind-added-later"
    assert all(len(label) <= 12 for label in NEED_WORDS.values())  # fits the narrow layout
