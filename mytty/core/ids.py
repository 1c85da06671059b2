"""Identifier types and rules: deterministic ("stable") UUIDs and UUID string normalisation.

Four kinds of id travel through the controller, all strings, and two of them used to share the
name ``pane_id``. They are distinct types for mypy:

- :data:`TmuxPaneId` — tmux's own pane id, ``%N`` (only the tmux layer and the pane registry
  speak it; it is never on the wire);
- :data:`SurfaceId` — mytty's pane identity, an uppercase UUID (``MYTTY_SURFACE_ID``; the wire's
  ``paneID``/``surfaceID``);
- :data:`RunId` — one agent run (``runID``); :data:`JobId` — one spawned worker job (``jobID``).

A stable UUID is the first 16 bytes of SHA-256 over the NUL-joined identity parts, with the
version nibble forced to 5 and the RFC 4122 variant bits set. It only looks like a v5 UUID
(there is no namespace); what matters is that the same identity always gives the same id,
so a retried hook or a repeated startup sweep is de-duplicated by the store.
"""

from __future__ import annotations

try:  # the builtin digest: importing hashlib would load OpenSSL on every hook invocation
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - interpreters built without the builtin module
    from hashlib import sha256 as _sha256

# The hook helper imports this module and must not load ``typing`` (see its import budget): at
# run time every id is just ``str``, and only mypy sees the distinct types.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NewType

    TmuxPaneId = NewType("TmuxPaneId", str)
    SurfaceId = NewType("SurfaceId", str)
    RunId = NewType("RunId", str)
    JobId = NewType("JobId", str)
else:
    TmuxPaneId = SurfaceId = RunId = JobId = str

_HEX = frozenset("0123456789abcdefABCDEF")


def stable_uuid(*parts: str) -> str:
    """Return the uppercase stable UUID for the identity ``parts`` (joined with NUL)."""
    digest = bytearray(_sha256("\0".join(parts).encode("utf-8")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    h = digest.hex().upper()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def format_uuid_bytes(raw: bytes) -> str:
    """Format 16 bytes (e.g. from ``os.urandom``) as an uppercase version-4 UUID string."""
    b = bytearray(raw[:16])
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    h = b.hex().upper()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def normalize_uuid(value: object) -> str | None:
    """Return ``value`` as an uppercase hyphenated UUID string, or None when it is not one.

    Parsing is case-insensitive, as in the original; output is always uppercase.
    """
    if not isinstance(value, str) or len(value) != 36:
        return None
    # (Sliced and checked as a set, not char by char: the controller runs this a few times
    # per event.)
    if value[8] != "-" or value[13] != "-" or value[18] != "-" or value[23] != "-":
        return None
    if not _HEX.issuperset(value[:8] + value[9:13] + value[14:18] + value[19:23] + value[24:]):
        return None
    return value.upper()


def resolve_prefix(ids: list[str], text: str) -> list[str]:
    """The ids ``text`` names: the one it spells in full, else those it starts (any case,
    hyphens optional). A text without a digit of the id (empty, blanks, hyphens alone) names
    none: never "whatever is pending"."""
    key = text.strip().upper()
    exact = [i for i in ids if i == key]
    if exact:
        return exact
    bare = key.replace("-", "")
    if not bare:
        return []
    return [i for i in ids if i.replace("-", "").startswith(bare)]


def parse_surface_id(value: object) -> SurfaceId | None:
    """``value`` as a surface id (normalised like :func:`normalize_uuid`), or None."""
    uuid = normalize_uuid(value)
    return SurfaceId(uuid) if uuid is not None else None
