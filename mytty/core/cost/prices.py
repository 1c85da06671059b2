"""The price table shipped with mytty: US dollars per million tokens, per model, with its date.

The providers' public list prices on :data:`PRICES_DATE` for standard API use: no batch or
priority tiers, Anthropic's cache writes at the 5-minute rate (1.25 × input) and prompts under
200k tokens (Sonnet's long-context prices are not modelled). OpenAI bills no cache writes, so
they cost the input price. A model missing here costs ``null``, never a guess: add it under
``[prices]`` in config.toml (an entry there also replaces a shipped one). Models newer than
the table are the usual case for that.

Keys are model ids as transcripts name them, without the date suffix: ``claude-sonnet-4-5``
also prices ``claude-sonnet-4-5-20250929`` (see :func:`mytty.core.cost.pricing.price_for`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

#: When these prices were the providers' list prices.
PRICES_DATE = "2025-11-24"


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """US dollars per million tokens of each kind (the four counters of a job's usage)."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal


def _p(input: str, output: str, cache_read: str, cache_write: str) -> ModelPrice:
    return ModelPrice(Decimal(input), Decimal(output), Decimal(cache_read), Decimal(cache_write))


PRICES: Mapping[str, ModelPrice] = {
    # Anthropic (cache read 0.1 x input, cache write 1.25 x input)
    "claude-opus-4-5": _p("5", "25", "0.50", "6.25"),
    "claude-opus-4-1": _p("15", "75", "1.50", "18.75"),
    "claude-opus-4": _p("15", "75", "1.50", "18.75"),
    "claude-sonnet-4-5": _p("3", "15", "0.30", "3.75"),
    "claude-sonnet-4": _p("3", "15", "0.30", "3.75"),
    "claude-3-7-sonnet": _p("3", "15", "0.30", "3.75"),
    "claude-3-5-sonnet": _p("3", "15", "0.30", "3.75"),
    "claude-haiku-4-5": _p("1", "5", "0.10", "1.25"),
    "claude-3-5-haiku": _p("0.80", "4", "0.08", "1"),
    "claude-3-opus": _p("15", "75", "1.50", "18.75"),
    "claude-3-haiku": _p("0.25", "1.25", "0.03", "0.30"),
    # OpenAI (cached input as cache read; cache writes at the input price)
    "gpt-5.1": _p("1.25", "10", "0.125", "1.25"),
    "gpt-5.1-codex": _p("1.25", "10", "0.125", "1.25"),
    "gpt-5.1-codex-mini": _p("0.25", "2", "0.025", "0.25"),
    "gpt-5": _p("1.25", "10", "0.125", "1.25"),
    "gpt-5-codex": _p("1.25", "10", "0.125", "1.25"),
    "gpt-5-mini": _p("0.25", "2", "0.025", "0.25"),
    "gpt-5-nano": _p("0.05", "0.40", "0.005", "0.05"),
    "gpt-4.1": _p("2", "8", "0.50", "2"),
    "gpt-4.1-mini": _p("0.40", "1.60", "0.10", "0.40"),
    "o3": _p("2", "8", "0.50", "2"),
    "o4-mini": _p("1.10", "4.40", "0.275", "1.10"),
    "codex-mini-latest": _p("1.50", "6", "0.375", "1.50"),
}
