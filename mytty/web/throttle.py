"""How many wrong pairing codes a client may try: a sliding window, with time as an input.

A code is 128 random bits, so guessing is hopeless anyway; the limit keeps a flood of guesses
from filling the log and the CPU. Failures count, successes don't: past
:data:`PER_CLIENT` failures from one address within :data:`WINDOW_S`, or :data:`OVERALL`
from everyone, every further attempt (a right code too) is answered 429 until the oldest
failure leaves the window.
"""

from __future__ import annotations

from collections import deque

WINDOW_S = 60.0
PER_CLIENT = 5
OVERALL = 20


class PairingThrottle:
    def __init__(
        self, *, window: float = WINDOW_S, per_client: int = PER_CLIENT, overall: int = OVERALL
    ) -> None:
        self.window = window
        self.per_client = per_client
        self.overall = overall
        self._failures: deque[tuple[float, str]] = deque()

    def _forget(self, now: float) -> None:
        while self._failures and self._failures[0][0] <= now - self.window:
            self._failures.popleft()

    def allowed(self, client: str, now: float) -> bool:
        """Whether ``client`` may try a code at ``now``."""
        self._forget(now)
        if len(self._failures) >= self.overall:
            return False
        return sum(1 for _, who in self._failures if who == client) < self.per_client

    def failed(self, client: str, now: float) -> None:
        self._forget(now)
        self._failures.append((now, client))

    def retry_after(self, client: str, now: float) -> int:
        """Seconds until ``client`` may try again (for ``Retry-After``; 0: now)."""
        self._forget(now)
        if len(self._failures) >= self.overall:
            oldest = self._failures[0][0]
        else:
            own = [at for at, who in self._failures if who == client]
            if len(own) < self.per_client:
                return 0
            oldest = own[0]
        return max(1, int(oldest + self.window - now + 0.999))
