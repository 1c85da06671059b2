"""The provider-account port of admission: "is this account limited, and until when".

Admission asks it for every queued job's provider (an agent CLI runs on the one account
logged in on this machine, so the provider names the account). A limited account makes its
jobs wait with the reason ``usage-limit``; when ``until`` is known the controller looks again
then. The default answers "never limited"; the usage-limit parking work plugs its own
implementation in here, without admission changing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mytty.core.events import WorkerProvider


@dataclass(frozen=True, slots=True)
class AccountLimit:
    """The provider's account can't take more work now."""

    #: When it can again (Unix seconds), if the provider said.
    until: float | None = None
    #: Why, in a few words (shown in the job's message).
    detail: str = "the provider's usage limit is reached"


class AccountLimits(Protocol):
    def limit(self, provider: WorkerProvider, now: float) -> AccountLimit | None:
        """The provider account's limit at ``now``, or None when it may start work."""
        ...


class NoAccountLimits:
    """The default: no account is ever limited."""

    __slots__ = ()

    def limit(self, provider: WorkerProvider, now: float) -> AccountLimit | None:
        return None


NO_ACCOUNT_LIMITS = NoAccountLimits()
