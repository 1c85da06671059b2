"""Pairing codes exchanged for sessions, and the CSRF token of a session.

- A **pairing code** is 128 random bits (22 URL-safe characters), valid for
  :data:`CODE_TTL_S` (10 minutes) and exactly once: redeeming it removes it, so a second visit
  of the same URL is refused.
- Redeeming one makes a **session**: a 256-bit token the browser keeps in an ``HttpOnly``,
  ``SameSite=Strict`` cookie (never in a URL or a page), valid :data:`SESSION_TTL_S` (30 days)
  or until ``mytty web --revoke-all``. A session has a public ``id`` (``web-`` and 8 hex
  digits) that logs and the approvals audit name instead of the token.
- The **CSRF token** is derived from the session token (HMAC-SHA256 under a fixed label), so
  the server keeps nothing for it: the page carries it for its POSTs, and without the cookie
  it is worth nothing.

The functions here take the state and the time and return the new state: the caller holds the
state file's lock (:class:`Sessions` does) and the tests drive the clock.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from mytty.web.state import PairingCode, SessionRecord, StateFile, WebState

CODE_TTL_S = 600.0
SESSION_TTL_S = 30 * 86400.0
#: At most this many codes wait at once (each ``mytty web --pair`` adds one).
MAX_CODES = 16
_CSRF_LABEL = b"mytty-web csrf v1"
#: What a code looks like (secrets.token_urlsafe's alphabet): anything else is refused unread.
CODE_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
MAX_SECRET_LENGTH = 64


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def plausible(secret: str) -> bool:
    """Whether ``secret`` could be a code or token at all (length and alphabet)."""
    return 0 < len(secret) <= MAX_SECRET_LENGTH and set(secret) <= CODE_ALPHABET


def prune(state: WebState, now: float) -> WebState:
    """``state`` without expired codes and sessions."""
    return dataclasses.replace(
        state,
        sessions=tuple(s for s in state.sessions if s.expires_at > now),
        codes=tuple(c for c in state.codes if c.expires_at > now),
    )


def add_code(state: WebState, code: str, now: float) -> WebState:
    """``state`` with the pairing code ``code`` waiting (the oldest dropped past MAX_CODES)."""
    pruned = prune(state, now)
    codes = (*pruned.codes, PairingCode(digest(code), now + CODE_TTL_S))[-MAX_CODES:]
    return dataclasses.replace(pruned, codes=codes)


@dataclass(frozen=True, slots=True)
class Paired:
    record: SessionRecord
    token: str


def redeem(
    state: WebState, code: str, now: float, *, client: str, token: str, session_id: str
) -> tuple[WebState, Paired | None]:
    """Exchange ``code`` for a new session (``token``, ``session_id``), or None when the code
    is unknown, used or expired; either way the code is gone afterwards."""
    pruned = prune(state, now)
    wanted = digest(code) if plausible(code) else None
    match = [
        c for c in pruned.codes if wanted is not None and hmac.compare_digest(c.digest, wanted)
    ]
    if not match:
        return pruned, None
    record = SessionRecord(session_id, digest(token), now, now + SESSION_TTL_S, client)
    return (
        dataclasses.replace(
            pruned,
            codes=tuple(c for c in pruned.codes if c not in match),
            sessions=(*pruned.sessions, record),
        ),
        Paired(record, token),
    )


def find(state: WebState, token: str, now: float) -> SessionRecord | None:
    """The live session whose cookie holds ``token``."""
    if not plausible(token):
        return None
    wanted = digest(token)
    for record in state.sessions:
        if record.expires_at > now and hmac.compare_digest(record.token_digest, wanted):
            return record
    return None


def csrf_token(token: str) -> str:
    """The CSRF token of the session whose cookie holds ``token``."""
    return hmac.new(token.encode("utf-8"), _CSRF_LABEL, hashlib.sha256).hexdigest()[:43]


def csrf_ok(token: str, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(csrf_token(token), presented)


def new_code() -> str:
    return secrets.token_urlsafe(16)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_session_id() -> str:
    return f"web-{secrets.token_hex(4)}"


class Sessions:
    """The sessions and codes of one ``$MYTTY_HOME/web``, read again whenever the file changed
    (another process paired or revoked). ``clock`` gives the time in Unix seconds."""

    def __init__(self, file: StateFile, clock: Callable[[], float]) -> None:
        self.file = file
        self.clock = clock
        self._signature: tuple[int, int, int] | None = None
        self._state = WebState()
        self._loaded = False

    def current(self) -> WebState:
        signature = self.file.signature()
        if not self._loaded or signature != self._signature:
            self._state = self.file.read()
            self._signature = signature
            self._loaded = True
        return self._state

    def find(self, token: str | None) -> SessionRecord | None:
        if not token:
            return None
        return find(self.current(), token, self.clock())

    def issue_code(self) -> str:
        """A new pairing code, stored (as its digest) for the running server."""
        code = new_code()
        with self.file.locked():
            self.file.write(add_code(self.file.read(), code, self.clock()))
        return code

    def redeem(self, code: str, client: str) -> Paired | None:
        with self.file.locked():
            state, paired = redeem(
                self.file.read(),
                code,
                self.clock(),
                client=client,
                token=new_token(),
                session_id=new_session_id(),
            )
            self.file.write(state)
        return paired

    def end(self, session_id: str) -> None:
        """End one session (sign out)."""
        with self.file.locked():
            state = self.file.read()
            kept = tuple(s for s in state.sessions if s.id != session_id)
            self.file.write(dataclasses.replace(state, sessions=kept))

    def revoke_all(self) -> int:
        """End every session and drop every waiting code; how many sessions were live."""
        with self.file.locked():
            state = prune(self.file.read(), self.clock())
            self.file.write(dataclasses.replace(state, sessions=(), codes=()))
        return len(state.sessions)

    def announce(self, url: str | None, pid: int | None) -> None:
        """Record (or, with None, forget) the running server's address for ``--pair``."""
        with self.file.locked():
            state = prune(self.file.read(), self.clock())
            self.file.write(dataclasses.replace(state, url=url, pid=pid))
