"""A job's cost in dollars from its tokens and the price table (pure, exact).

Costs are :class:`~decimal.Decimal` sums of tokens × dollars per million, so the cost of a job
is exactly the table's prices times its token counts (no float rounding on the way); the wire
shows it rounded to a micro-dollar. A job's tokens are priced as they arrive, at the model the
transcript names for them, so a worker that switches models pays each its own price. Tokens
of a model the table does not know make the whole cost unknown (``None``, JSON ``null``) from
then on: a sum with an unknown part is no number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal

from mytty.core.cost.prices import PRICES, ModelPrice
from mytty.core.transcripts.usage import TokenUsage

MILLION = Decimal(1_000_000)
ZERO_USD = Decimal(0)
#: A dated release of a model: the table's key, then ``-20250929`` or ``-2025-04-14``.
_DATED = re.compile(r"(.+)-(?:\d{8}|\d{4}-\d{2}-\d{2})")


def price_for(model: str | None, table: Mapping[str, ModelPrice] = PRICES) -> ModelPrice | None:
    """The price of ``model``: its own entry, or the entry it is a dated release of; None when
    neither exists (a family name alone is no match: ``gpt-5-mini`` never prices as
    ``gpt-5``)."""
    if not model:
        return None
    found = table.get(model)
    if found is not None:
        return found
    dated = _DATED.fullmatch(model)
    return table.get(dated.group(1)) if dated is not None else None


def cost_of(tokens: TokenUsage, price: ModelPrice) -> Decimal:
    """Dollars ``tokens`` cost at ``price`` (exact)."""
    return (
        tokens.input * price.input
        + tokens.output * price.output
        + tokens.cache_read * price.cache_read
        + tokens.cache_write * price.cache_write
    ) / MILLION


def add_cost(
    so_far: Decimal | None, tokens: TokenUsage, model: str | None, table: Mapping[str, ModelPrice]
) -> Decimal | None:
    """``so_far`` plus what ``tokens`` spent by ``model`` cost (None stays None; no tokens cost
    nothing, whatever the model; an unknown model makes it None)."""
    if so_far is None:
        return None
    if not tokens:
        return so_far
    price = price_for(model, table)
    if price is None:
        return None
    return so_far + cost_of(tokens, price)


def total(costs: Iterable[Decimal | None]) -> Decimal | None:
    """The sum, or None when any part is unknown."""
    out = ZERO_USD
    for cost in costs:
        if cost is None:
            return None
        out += cost
    return out


def usd(cost: Decimal) -> float:
    """A cost on the wire: dollars as a JSON number, rounded to a micro-dollar."""
    return float(round(cost, 6))


def merged_table(overrides: Iterable[tuple[str, ModelPrice]]) -> dict[str, ModelPrice]:
    """The shipped table with config.toml's ``[prices]`` entries added or replacing."""
    table = dict(PRICES)
    table.update(overrides)
    return table


#: Percent of a dollar budget at which an attention item and a lead notice are raised.
USD_BUDGET_WARN_PERCENT = 80


def usd_budget_stage(cost: Decimal | None, budget: Decimal | None) -> int:
    """0 below 80 % of ``budget``, 1 from there, 2 at or above 100 % (0 without a budget or
    with an unknown cost: an unknown cost is never taken for a spent budget)."""
    if cost is None or budget is None or budget <= 0:
        return 0
    if cost >= budget:
        return 2
    if cost * 100 >= budget * USD_BUDGET_WARN_PERCENT:
        return 1
    return 0
