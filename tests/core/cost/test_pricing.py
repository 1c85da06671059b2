"""Costs: the price table times the tokens, exactly; an unknown model is null."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.cost.prices import PRICES, PRICES_DATE, ModelPrice
from mytty.core.cost.pricing import (
    add_cost,
    cost_of,
    merged_table,
    price_for,
    total,
    usd,
    usd_budget_stage,
)
from mytty.core.transcripts.usage import TokenUsage

SONNET = PRICES["claude-sonnet-4-5"]


def test_the_table_has_a_date_and_dated_releases_find_their_entry() -> None:
    assert PRICES_DATE.count("-") == 2
    assert price_for("claude-sonnet-4-5-20250929") is SONNET
    assert price_for("gpt-4.1-2025-04-14") is PRICES["gpt-4.1"]
    assert price_for("gpt-5-codex") is PRICES["gpt-5-codex"]


def test_an_unknown_model_has_no_price_never_a_neighbours() -> None:
    for model in (
        "claude-opus-5-5",
        "gpt-5-turbo",
        "claude-sonnet-4-5-preview",
        "",
        None,
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ):
        assert price_for(model) is None


def test_cost_is_the_price_times_the_tokens() -> None:
    tokens = TokenUsage(input=1200, output=800, cache_read=50_000, cache_write=3_000)
    expected = (1200 * 3 + 800 * 15 + 50_000 * Decimal("0.30") + 3_000 * Decimal("3.75")) / 10**6
    assert cost_of(tokens, SONNET) == expected
    assert usd(expected) == 0.041850


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), max_size=8))
def test_adding_as_tokens_arrive_equals_pricing_the_total(parts: list[tuple[int, int]]) -> None:
    so_far: Decimal | None = Decimal(0)
    whole = TokenUsage()
    for i, o in parts:
        delta = TokenUsage(input=i, output=o)
        so_far = add_cost(so_far, delta, "claude-sonnet-4-5-20250929", PRICES)
        whole = whole + delta
    assert so_far == cost_of(whole, SONNET)


def test_an_unknown_model_makes_the_cost_unknown_but_no_tokens_cost_nothing() -> None:
    some = TokenUsage(input=10)
    assert add_cost(Decimal(0), TokenUsage(), None, PRICES) == 0
    assert add_cost(Decimal(1), some, "mystery", PRICES) is None
    assert add_cost(None, some, "claude-sonnet-4-5", PRICES) is None
    assert total([Decimal(1), Decimal("0.5")]) == Decimal("1.5")
    assert total([Decimal(1), None]) is None


def test_config_entries_add_and_replace() -> None:
    mine = ModelPrice(Decimal(1), Decimal(2), Decimal(0), Decimal(0))
    table = merged_table([("claude-opus-5-5", mine), ("gpt-5", mine)])
    assert price_for("claude-opus-5-5", table) is mine
    assert table["gpt-5"] is mine and PRICES["gpt-5"] is not mine


def test_budget_stages() -> None:
    budget = Decimal("2.00")
    assert usd_budget_stage(Decimal("1.59"), budget) == 0
    assert usd_budget_stage(Decimal("1.60"), budget) == 1
    assert usd_budget_stage(Decimal("2.00"), budget) == 2
    assert usd_budget_stage(None, budget) == 0
    assert usd_budget_stage(Decimal(5), None) == 0
