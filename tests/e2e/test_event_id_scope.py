"""An event id is unique per pane and provider, not across the controller (issue 15 #11).

Before, ids were global: pane A could send the id pane B's hook was about to use, and B's real
event was then answered ``inserted: false`` and dropped as a duplicate.
"""

from __future__ import annotations

import pytest

from tests.e2e.events_support import (
    DUPLICATE,
    INSERTED,
    K,
    P,
    new_id,
    open_agent_pane,
    send_event,
)
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def test_pane_a_cannot_make_pane_b_events_drop_as_duplicates(mytty: Mytty) -> None:
    a, b = open_agent_pane(mytty), open_agent_pane(mytty)
    stolen = new_id()
    # A sends first, under its own (valid) capability, with the id B is going to use.
    assert send_event(mytty, a.event(K.STARTED, event_id=stolen), a.capability) == INSERTED

    b_event = b.event(K.STARTED, event_id=stolen)
    assert send_event(mytty, b_event, b.capability) == INSERTED
    assert b.entry().get("agentState") == "running"
    # Retries are still idempotent, each within its own pane.
    assert send_event(mytty, b_event, b.capability) == DUPLICATE
    assert send_event(mytty, a.event(K.STARTED, event_id=stolen), a.capability) == DUPLICATE


def test_the_same_id_from_another_provider_of_the_same_pane_is_another_event(
    mytty: Mytty,
) -> None:
    pane = open_agent_pane(mytty)
    shared = new_id()
    first = pane.event(K.STARTED, event_id=shared, provider=P.CLAUDE_CODE)
    assert send_event(mytty, first, pane.capability) == INSERTED
    other = pane.event(K.STARTED, event_id=shared, provider=P.OPENCODE)
    assert send_event(mytty, other, pane.capability) == INSERTED
    assert send_event(mytty, other, pane.capability) == DUPLICATE


def test_ids_stay_idempotent_across_a_restart(mytty: Mytty) -> None:
    pane = open_agent_pane(mytty)
    event = pane.event(K.STARTED)
    assert send_event(mytty, event, pane.capability) == INSERTED
    mytty.stop()
    mytty.start()
    assert send_event(mytty, event, pane.capability) == DUPLICATE
