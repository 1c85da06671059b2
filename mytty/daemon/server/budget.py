"""How a socket server shares its connections, so that no client can make it look dead.

A server holds at most ``Budget.limit`` connections (its share of the descriptor limit). Within
that:

* one peer (a process, by its ``SO_PEERCRED`` pid) may hold at most ``per_peer`` of them;
* requests that may wait (``wait``, ``events``, a spawn …) never take the last ``reserve``: only
  short requests (``list``, ``status``, ``attention`` …, the router's list) may use those;
* a request past a share is answered (``Rules.reply``: ``too-many-requests`` naming the limits),
  not dropped, because a client that finds its connection closed reports the controller as not
  running.

The decision is made twice. When a connection is accepted (:meth:`Ledger.entry`), from the peer
and, when the request is already in the socket, its kind; refusals there are answered without
a task of their own, so a flood of them cannot fill the budget it is refused from. And when the
request has been read (:func:`admit`, called by the router), from its kind.
"""

from __future__ import annotations

import contextvars
import enum
import resource
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from mytty.core.errors import ErrorCode, MyttyError

#: Of a server's connections, one in this many (at least SHORT_RESERVE_MIN) is kept for short
#: requests: requests that may wait can never take them.
SHORT_RESERVE_DIVISOR = 8
SHORT_RESERVE_MIN = 4
#: One peer may have at most this share (1/N) of the connections requests that wait may use.
PEER_SHARE_DIVISOR = 4


@dataclass(frozen=True, slots=True)
class Budget:
    """How a server's ``limit`` connections are shared between its clients.

    >>> Budget.of(477)
    Budget(limit=477, reserve=59, per_peer=104)
    """

    limit: int
    #: Connections requests that may wait cannot take (short requests can).
    reserve: int
    #: Connections one peer may hold at once.
    per_peer: int

    @classmethod
    def of(cls, limit: int) -> Budget:
        reserve = min(max(SHORT_RESERVE_MIN, limit // SHORT_RESERVE_DIVISOR), limit // 2)
        return cls(limit, reserve, max(1, (limit - reserve) // PEER_SHARE_DIVISOR))

    @property
    def waiting(self) -> int:
        """How many connections requests that may wait can use together."""
        return self.limit - self.reserve


@dataclass(frozen=True, slots=True)
class Rules:
    """What a server's budget needs from its protocol."""

    #: The reply to a request refused for the budget's sake (``too-many-requests`` and why).
    reply: Callable[[str], bytes]
    #: Whether a request (its whole first line) is short; None when it cannot tell.
    is_short: Callable[[bytes], bool | None]


class Entry(enum.Enum):
    """What becomes of a new connection."""

    SERVE = "serve"
    #: Served out of the reserve before its request could be read (a few at a time).
    SERVE_UNSORTED = "serve-unsorted"
    REFUSE = "refuse"


class Ledger:
    """What a server's clients hold now, per peer pid."""

    def __init__(self, budget: Budget, name: str) -> None:
        self.budget = budget
        self.name = name
        #: Connections being served.
        self.connections: Counter[int] = Counter()
        #: Connections being refused (their request still coming).
        self.refusing: Counter[int] = Counter()
        #: Requests that passed :func:`admit`; ``waiting`` of them may wait.
        self.admitted: Counter[int] = Counter()
        self.waiting = 0
        #: Connections of the reserve whose request was not read when they were taken.
        self.unsorted = 0

    @property
    def held(self) -> int:
        """Descriptors held for clients."""
        return self.connections.total() + self.refusing.total()

    def entry(self, pid: int, request: bytes | None, rules: Rules | None) -> tuple[Entry, str]:
        """How a new connection of ``pid`` is taken (and why not), ``request`` being its whole
        request line when it has arrived already."""
        budget, held = self.budget, self.held
        if self.connections[pid] >= budget.per_peer:
            return Entry.REFUSE, self.over_share(pid)
        if held >= budget.limit:
            return Entry.REFUSE, self.full()
        if held < budget.waiting or rules is None:
            return Entry.SERVE, ""
        # The reserve: short requests only.
        if request is not None:
            if rules.is_short(request) is False:
                return Entry.REFUSE, self.full()
            return Entry.SERVE, ""
        if self.unsorted >= budget.reserve // 2:
            return Entry.REFUSE, self.full()
        return Entry.SERVE_UNSORTED, ""

    def may_refuse_later(self, pid: int) -> bool:
        """Whether a refused connection whose request is still coming may wait for it."""
        return self.refusing[pid] < self.budget.per_peer and self.held < self.budget.limit

    # -- what a refusal says ----------------------------------------------------------------------
    def over_share(self, pid: int) -> str:
        held = max(self.admitted[pid], self.connections[pid])
        return (
            f"this client (pid {pid}) has {held} requests in progress; one client may have at "
            f"most {self.budget.per_peer} at once on the {self.name} socket ({self.limits()})"
        )

    def full(self) -> str:
        return (
            f"the {self.name} socket is busy: {self.held} connections are open and requests "
            f"that may wait use at most {self.budget.waiting} ({self.limits()}); short requests "
            "such as list, status and attention still answer"
        )

    def limits(self) -> str:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return (
            f"{self.budget.limit} connections under a descriptor limit of {soft}, "
            f"{self.budget.reserve} of them kept for short requests"
        )

    @staticmethod
    def release(pid: int, counter: Counter[int]) -> None:
        counter[pid] -= 1
        if counter[pid] <= 0:
            del counter[pid]


@dataclass(slots=True)
class Admission:
    """One served connection's claim on the budget; released when the connection ends."""

    ledger: Ledger
    pid: int
    unsorted: bool = False
    admitted: bool = False
    waits: bool = False

    def admit(self, short: bool) -> None:
        ledger, budget = self.ledger, self.ledger.budget
        if self.admitted:
            return
        self._sorted()
        if ledger.admitted[self.pid] >= budget.per_peer:
            raise MyttyError(ErrorCode.TOO_MANY_REQUESTS, ledger.over_share(self.pid))
        if not short and ledger.waiting >= budget.waiting:
            raise MyttyError(ErrorCode.TOO_MANY_REQUESTS, ledger.full())
        self.admitted = True
        ledger.admitted[self.pid] += 1
        if not short:
            self.waits = True
            ledger.waiting += 1

    def release(self) -> None:
        self._sorted()
        if self.admitted:
            self.ledger.release(self.pid, self.ledger.admitted)
            if self.waits:
                self.ledger.waiting -= 1
        self.admitted = self.waits = False

    def _sorted(self) -> None:
        if self.unsorted:
            self.unsorted = False
            self.ledger.unsorted -= 1


CURRENT: contextvars.ContextVar[Admission | None] = contextvars.ContextVar(
    "mytty_admission", default=None
)


def admit(*, short: bool) -> None:
    """Claim the current request's share of its server's budget, or raise
    ``too-many-requests``: its client is at its share, or (``short`` False: it may wait) the
    requests that may wait fill everything but the reserve. Outside a server: nothing."""
    admission = CURRENT.get()
    if admission is not None:
        admission.admit(short)
