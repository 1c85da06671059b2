"""Text that cannot reach tmux is refused up front and never wedges the tmux connection.

A JSON request may carry lone surrogates (``"\\ud800"``): valid JSON, but not text anything
downstream (tmux, SQLite, the UTF-8 reply) can take. Before the fix one such ``send`` left the
control connection's replies shifted by one, so ``list`` answered with no panes, every
capability was revoked and every valid event refused.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.events_support import INSERTED, K, open_agent_pane, send_event
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

LONE = "a\\ud800b"  # as written in the JSON text: an escape JSON accepts


def raw_request(m: Mytty, body: str) -> dict[str, Any]:
    return m.request(body.encode() + b"\n")


def tmux_surfaces(m: Mytty) -> set[str]:
    out = m.tmux("list-panes", "-a", "-F", "#{@mytty_surface}")
    return {line for line in out.splitlines() if line}


def test_send_with_a_lone_surrogate_is_refused_and_everything_keeps_working(
    mytty: Mytty,
) -> None:
    panes = [open_agent_pane(mytty) for _ in range(3)]
    listed_before = {p["paneID"] for p in mytty.panes()}
    assert {p.pane_id for p in panes} <= listed_before

    for pane in panes:
        reply = raw_request(mytty, f'{{"type":"send","paneID":"{pane.pane_id}","text":"{LONE}"}}')
        assert reply["type"] == "failure" and reply["code"] == "invalid-request", reply

    # The connection is still in step: every pane is listed, with the same ids tmux holds.
    listed_after = {p["paneID"] for p in mytty.panes()}
    assert listed_after == listed_before
    assert listed_after <= tmux_surfaces(mytty)
    # ... so every capability is still valid, and ordinary sends still arrive.
    for pane in panes:
        assert send_event(mytty, pane.event(K.STARTED), pane.capability) == INSERTED
    mytty.ctl("send", panes[0].pane_id, "echo still-typing", "--enter").ok()
    mytty.wait_for_text(panes[0].pane_id, "still-typing")


@pytest.mark.parametrize(
    "template",
    [
        '{{"type":"setPaneStatus","paneID":"{pane}","status":"{text}"}}',
        '{{"type":"newTab","command":"echo {text}"}}',
        '{{"type":"split","paneID":"{pane}","command":"echo {text}"}}',
        '{{"type":"newTab","workingDirectory":"/tmp/{text}"}}',
        '{{"type":"sendKey","paneID":"{pane}","key":"{text}"}}',
        '{{"type":"list","{text}":1}}',  # in a key, too
    ],
)
def test_any_text_field_with_a_lone_surrogate_is_invalid_request(
    shared_mytty: Mytty, template: str
) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    pane = mytty.first_pane()
    before = {p["paneID"] for p in mytty.panes()}
    reply = raw_request(mytty, template.format(pane=pane, text=LONE))
    assert reply["type"] == "failure" and reply["code"] == "invalid-request", reply
    assert "surrogate" in reply["message"], reply
    listed = mytty.ctl("list").json["panes"]
    assert {p["paneID"] for p in listed} == before
    assert all("statusNote" not in p for p in listed)


def test_a_surrogate_pair_is_ordinary_text(mytty: Mytty) -> None:
    pane = mytty.first_pane()
    body = json.dumps({"type": "setPaneStatus", "paneID": pane, "status": "ok \U0001f600"})
    assert "\\ud83d\\ude00" in body  # json.dumps writes the pair as two escapes
    assert raw_request(mytty, body) == {"type": "ok"}
    assert any(p.get("statusNote") == "ok \U0001f600" for p in mytty.panes())
