"""The event socket handler: decode, authorize, store, reply.

Replies never contain the capability. ``inserted: true`` is sent only after the store commit.
An envelope with an ``approval`` (a PermissionRequest hook waiting for its decision) goes to
the approvals broker once authorised (:mod:`mytty.daemon.approvals.broker`), whose reply may
hold the connection open.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import (
    SCHEMA_VERSION,
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    format_timestamp,
    parse_timestamp,
)
from mytty.core.ids import SurfaceId, stable_uuid
from mytty.daemon.agents import AgentHub
from mytty.daemon.approvals.broker import ApprovalBroker
from mytty.daemon.panes.identity import PaneRegistry
from mytty.daemon.server.sockets import HeldReply, Peer
from mytty.daemon.store import StoreError
from mytty.protocol.envelope import decode_envelope, encode_event_reply

log = logging.getLogger(__name__)

#: A failing store fails every event: the same reason is logged at most once per this long.
STORE_FAILURE_LOG_INTERVAL_S = 60.0


#: Unix seconds of 1000-01-01 and 9000-01-01 (UTC): any time between round-trips as text.
_PLAIN_YEARS = (-30610224000.0, 221845392000.0)


def _storable(event: AgentEvent) -> bool:
    """True when the store can write the event and read it back unchanged in meaning.

    JSON can carry lone surrogates (``"\\ud800"``), which are not text SQLite can store, and
    ISO 8601 offsets can push a year-1 or year-9999 timestamp out of the representable range;
    both would otherwise fail deep in the store's writer.
    """
    for text in (
        event.session_id,
        event.message,
        event.hook_name,
        event.tool_use_id,
        event.tool_name,
        event.last_assistant_message,
    ):
        if text is not None:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return False
    if _PLAIN_YEARS[0] <= event.occurred_at <= _PLAIN_YEARS[1]:
        return True  # far from the edges: the round trip below cannot fail
    try:
        parse_timestamp(format_timestamp(event.occurred_at, fractional=True))
    except (ValueError, OverflowError, OSError):
        return False
    return True


#: The providers whose PermissionRequest hook can take a decision.
_DECIDING_PROVIDERS = frozenset({AgentProvider.CLAUDE_CODE, AgentProvider.CODEX})


def _decidable(event: AgentEvent) -> bool:
    """An approval request of a provider whose hook reads the broker's decision (any other
    envelope with an ``approval`` is stored as a plain event)."""
    return event.provider in _DECIDING_PROVIDERS and event.kind is AgentEventKind.APPROVAL_REQUESTED


def scoped_event_id(event: AgentEvent) -> str:
    """The id an event is stored and de-duplicated under: its own, scoped to pane and provider.

    A hook's ``event.id`` only has to stay the same across its retries; it is no secret, and
    another pane could send it first. Scoped to the (authorized, or for codex routed) pane and
    the provider, a retry is still ``inserted: false``, but no other pane can make this one's
    events drop as duplicates. Surface ids are never reissued, so the scope never repeats.
    """
    return stable_uuid("event", "hook", event.surface_id, event.provider.value, event.id)


class EventIngest:
    def __init__(
        self,
        *,
        hub: AgentHub,
        panes: PaneRegistry,
        route_codex: Callable[[AgentEvent], AgentEvent | None],
        lead_notices: Callable[[SurfaceId], Awaitable[str | None]] | None = None,
        approvals: ApprovalBroker | None = None,
    ) -> None:
        self._approvals = approvals
        #: ``agent spawn --notify-lead``'s notices for a lead pane (daemon.lead_inbox).
        self._lead_notices = lead_notices
        self._last_store_failure: tuple[str, float] = ("", float("-inf"))
        self._hub = hub
        self._panes = panes
        self._route_codex = route_codex

    def _log_store_failure(self, reason: str) -> None:
        last, at = self._last_store_failure
        now = time.monotonic()
        if reason != last or now - at >= STORE_FAILURE_LOG_INTERVAL_S:
            self._last_store_failure = (reason, now)
            log.error("could not store event: %s", reason)

    async def handle(self, body: bytes, peer: Peer) -> bytes | HeldReply:
        try:
            envelope = decode_envelope(body)
        except (MyttyError, RecursionError):  # RecursionError: absurdly nested JSON
            return encode_event_reply(error=ErrorCode.INVALID_REQUEST)
        event = envelope.event
        if not _storable(event):
            return encode_event_reply(error=ErrorCode.INVALID_REQUEST)
        if envelope.schema_version != SCHEMA_VERSION or event.schema_version != SCHEMA_VERSION:
            return encode_event_reply(error=ErrorCode.UNAUTHORIZED)
        if event.provider is AgentProvider.CODEX:
            # Codex hooks may run in a shared app-server process whose environment belongs to
            # whichever pane started it, so a codex event's own surface proves nothing: it is
            # placed by its sessionID (daemon.codex_routing), or refused when that can't be done
            # exactly.
            routed = self._route_codex(event)
            if routed is None:
                return encode_event_reply(error=ErrorCode.UNAUTHORIZED)
            event = routed
        elif not self._panes.authorize(event.surface_id, envelope.capability):
            return encode_event_reply(error=ErrorCode.UNAUTHORIZED)
        event = replace(event, id=scoped_event_id(event))
        if envelope.approval is not None and self._approvals is not None and _decidable(event):
            try:
                return await self._approvals.request(event, envelope.approval)
            except StoreError as exc:
                self._log_store_failure(str(exc))
                return encode_event_reply(error=ErrorCode.INTERNAL_ERROR)
            except Exception:
                log.exception("permission request failed")
                return encode_event_reply(error=ErrorCode.INTERNAL_ERROR)
        try:
            if self._approvals is not None:
                await self._approvals.before_event(event)  # a Stop after a dialog's deny
            inserted = await self._hub.ingest(event)
        except StoreError as exc:
            self._log_store_failure(str(exc))
            return encode_event_reply(error=ErrorCode.INTERNAL_ERROR)
        except Exception:
            log.exception("event ingestion failed")
            return encode_event_reply(error=ErrorCode.INTERNAL_ERROR)
        notice = None
        if inserted and envelope.lead_notices and self._lead_notices is not None:
            try:
                notice = await self._lead_notices(event.surface_id)
            except Exception:  # the event is stored; the news waits for the next turn
                log.exception("could not take the lead notices of pane %s", event.surface_id)
        return encode_event_reply(inserted=inserted, notice=notice)
