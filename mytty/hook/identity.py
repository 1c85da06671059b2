"""Deterministic event and run ids for hook events (providers.md §1.3).

The event id hashes the provider, the kind and the *whole* payload, so a hook the agent retries
(same payload) maps to the same id and the controller's ``INSERT OR IGNORE`` drops the copy.
Neither the surface, the clock nor anything from the environment is part of it.
"""

from mytty.core.ids import RunId, stable_uuid
from mytty.protocol.jsonlite import dumps


def canonical_payload(payload: object) -> str:
    """The payload re-serialised canonically: sorted keys, compact, non-ASCII and ``/`` verbatim.

    A payload holding a lone surrogate (from a ``\\udXXX`` escape) cannot be UTF-8 encoded; such
    payloads fall back to ASCII escapes, which is still deterministic.
    """
    text = dumps(payload, sort_keys=True)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = dumps(payload, sort_keys=True, ensure_ascii=True)
    return text


def _encodable(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def hook_event_id(provider: str, kind: str, payload: object) -> str:
    """``stable("event", provider, kind, canonical payload)``, uppercase."""
    return stable_uuid("event", provider, kind, canonical_payload(payload))


def hook_run_id(provider: str, run_key: str) -> RunId:
    """``stable("run", provider, runKey)``: one run per prompt/turn (or session when no turn)."""
    return RunId(stable_uuid("run", provider, _encodable(run_key)))
