"""Public entry points: a provider's hook payload → one normalized ``AgentEvent`` (or none).

The helper process uses the same pieces (adapters, identity, wire) without building an
``AgentEvent``; the controller, the e2e stand-in agents and the tests use :func:`adapt`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mytty.hook.adapters import load_adapter
from mytty.hook.identity import hook_event_id, hook_run_id
from mytty.hook.mapping import HookMapping, MissingRunKey

if TYPE_CHECKING:
    from mytty.core.events import AgentEvent

__all__ = ["HookMapping", "MissingRunKey", "adapt", "map_hook_payload"]


def map_hook_payload(provider: str, payload: dict[str, object]) -> HookMapping | None:
    """Read one payload with the provider's adapter: kind, run key and sanitised fields.

    Returns None for events mytty does not follow. Raises KeyError for an unknown provider.
    """
    return load_adapter(provider).map_payload(payload)  # type: ignore[no-any-return]


def adapt(
    provider: str,
    payload: dict[str, object],
    *,
    surface_id: str,
    occurred_at: float,
) -> AgentEvent | None:
    """Map a hook payload to the event ``mytty-agent-hook <provider>`` would send.

    ``surface_id`` is the pane's ``MYTTY_SURFACE_ID`` (uppercased); ``occurred_at`` is Unix
    seconds (the wire carries milliseconds). Ids are deterministic: the same payload always
    yields the same event id. Returns None for events mytty does not follow; raises
    ``MissingRunKey`` for a followed event with no run key and KeyError for an unknown provider.
    """
    from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
    from mytty.core.ids import SurfaceId

    mapping = map_hook_payload(provider, payload)
    if mapping is None:
        return None
    if not mapping.run_key:
        raise MissingRunKey(f"{provider} {mapping.hook_name or 'event'} has no run identifier")
    return AgentEvent(
        id=hook_event_id(provider, mapping.kind, payload),
        run_id=hook_run_id(provider, mapping.run_key),
        surface_id=SurfaceId(surface_id.upper()),
        provider=AgentProvider(provider),
        kind=AgentEventKind(mapping.kind),
        occurred_at=float(occurred_at),
        session_id=mapping.session_id,
        message=mapping.message,
        hook_name=mapping.hook_name,
        tool_use_id=mapping.tool_use_id,
        tool_name=mapping.tool_name,
        last_assistant_message=mapping.last_assistant_message,
    )
