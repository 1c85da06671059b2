"""Token usage of an agent's work, as its own transcript reports it (issue 13 item 5).

Four counters, the same meaning for every provider:

- ``input``: prompt tokens the model read *without* a cache hit;
- ``output``: tokens it wrote (Codex's reasoning tokens included, as OpenAI bills them);
- ``cache_read``: prompt tokens served from the prompt cache;
- ``cache_write``: prompt tokens written to the cache.

Claude's ``message.usage`` already splits them that way (``input_tokens``,
``cache_read_input_tokens``, ``cache_creation_input_tokens``). OpenAI's ``input_tokens`` counts
every prompt token, so a Codex reading subtracts ``cached_input_tokens`` and
``cache_write_input_tokens`` from it: ``total`` is then Codex's own ``total_tokens``.

Pure and stdlib only: readers parse, the controller adds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenUsage:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )

    def __sub__(self, other: TokenUsage) -> TokenUsage:
        """The part of ``self`` not in ``other``, clamped at 0 per counter."""
        return TokenUsage(
            max(0, self.input - other.input),
            max(0, self.output - other.output),
            max(0, self.cache_read - other.cache_read),
            max(0, self.cache_write - other.cache_write),
        )

    def __bool__(self) -> bool:
        return self.total > 0


ZERO = TokenUsage()

#: A counter above this is not a real reading (a corrupt or hostile line): it is ignored.
MAX_COUNT = 10**12


def count(value: object) -> int:
    """A token counter from JSON: a non-negative int (bools and absurd values read as 0)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        return 0
    return value


@dataclass(frozen=True, slots=True)
class UsageReading:
    """What one transcript says so far: its tokens and the model that spent the latest ones."""

    tokens: TokenUsage = ZERO
    model: str | None = None

    def __add__(self, other: UsageReading) -> UsageReading:
        return UsageReading(self.tokens + other.tokens, other.model or self.model)


#: Percentage of a budget at which an attention item is raised.
BUDGET_WARN_PERCENT = 80


def budget_stage(total: int, budget: int | None) -> int:
    """0 below :data:`BUDGET_WARN_PERCENT` % of ``budget``, 1 from there, 2 at or above 100 %
    (0 without a budget)."""
    if budget is None or budget <= 0:
        return 0
    if total >= budget:
        return 2
    if total * 100 >= budget * BUDGET_WARN_PERCENT:  # integers: no float rounding at the edge
        return 1
    return 0
