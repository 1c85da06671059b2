"""The web view's own state: paired sessions and pending pairing codes, in one private file.

``$MYTTY_HOME/web/state.json`` (0600, its directory 0700, whatever the umask) holds only
SHA-256 digests of the session tokens and pairing codes, never the secrets themselves: a copy
of the file pairs nobody and opens no session. Every change takes ``web/state.lock`` (``flock``)
and replaces the file atomically, so ``mytty web --pair`` and ``--revoke-all`` (other
processes) and the running server never lose each other's writes; the server notices a change
by the file's identity (:meth:`StateFile.signature`) and reads it again.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The folder under ``$MYTTY_HOME``.
WEB_DIR = "web"
STATE_FILE = "state.json"
LOCK_FILE = "state.lock"
#: Bumped when the file's shape changes; a file of another version is read as empty.
VERSION = 1


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """One paired browser: ``id`` is its public name (in logs and the approvals audit)."""

    id: str
    token_digest: str
    created_at: float
    expires_at: float
    #: Where it paired from: the peer address and the start of its User-Agent, for people.
    client: str = ""


@dataclass(frozen=True, slots=True)
class PairingCode:
    digest: str
    expires_at: float


@dataclass(frozen=True, slots=True)
class WebState:
    sessions: tuple[SessionRecord, ...] = ()
    codes: tuple[PairingCode, ...] = ()
    #: The base URL of the running ``mytty web`` (``--pair`` prints codes for it), or None.
    url: str | None = None
    pid: int | None = None


def to_json(state: WebState) -> dict[str, Any]:
    return {
        "version": VERSION,
        "url": state.url,
        "pid": state.pid,
        "sessions": [
            {
                "id": s.id,
                "tokenSha256": s.token_digest,
                "createdAt": s.created_at,
                "expiresAt": s.expires_at,
                "client": s.client,
            }
            for s in state.sessions
        ],
        "codes": [{"codeSha256": c.digest, "expiresAt": c.expires_at} for c in state.codes],
    }


def from_json(data: object) -> WebState:
    """The state a file holds; anything malformed reads as no sessions and no codes (the safe
    direction: a person pairs again)."""
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return WebState()
    try:
        sessions = tuple(
            SessionRecord(
                str(s["id"]),
                str(s["tokenSha256"]),
                float(s["createdAt"]),
                float(s["expiresAt"]),
                str(s.get("client", "")),
            )
            for s in data.get("sessions", [])
        )
        codes = tuple(
            PairingCode(str(c["codeSha256"]), float(c["expiresAt"])) for c in data.get("codes", [])
        )
        url = data.get("url")
        pid = data.get("pid")
    except (KeyError, TypeError, ValueError, AttributeError):
        return WebState()
    return WebState(
        sessions,
        codes,
        url if isinstance(url, str) else None,
        pid if isinstance(pid, int) else None,
    )


class StateFile:
    """``state.json`` in ``directory`` (``$MYTTY_HOME/web``)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / STATE_FILE
        self.lock_path = directory / LOCK_FILE

    def _ensure_directory(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.directory, 0o700)

    def read(self) -> WebState:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return WebState()
        try:
            return from_json(json.loads(text))
        except ValueError:
            return WebState()

    def signature(self) -> tuple[int, int, int] | None:
        """The file's identity now (inode, mtime, size): a different value means it changed."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        self._ensure_directory()
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(fd, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def write(self, state: WebState) -> None:
        """Replace the file (call it holding :meth:`locked`)."""
        self._ensure_directory()
        data = json.dumps(to_json(state), indent=1, sort_keys=True).encode("utf-8")
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".state.", suffix=".tmp")
        try:
            os.fchmod(fd, 0o600)  # mkstemp makes it 0600 already; a umask cannot widen it
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
