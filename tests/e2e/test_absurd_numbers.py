"""Absurd numbers in a request are ``invalid-request`` with a clear message, on both sockets.

Issue 15 defect 7 (server side): ``timeoutSeconds: 10**400`` answered internal-error and
logged a traceback. JSON puts no bound on integers, so the controller does.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.events_support import K, envelope_object, open_agent_pane, send_bytes
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

HUGE = "1" + "0" * 400  # 10**400: parses as a Python int, too large for a float
ENDLESS = "9" * 5000  # past Python's int-parsing limit of 4300 digits


def control_raw(m: Mytty, body: str) -> dict[str, object]:
    return m.request(body.encode() + b"\n")


@pytest.mark.parametrize(
    ("template", "field"),
    [
        ('{{"type":"wait","paneID":"{pane}","until":"idle","timeoutSeconds":{n}}}', HUGE),
        ('{{"type":"wait","paneID":"{pane}","until":"idle","timeoutSeconds":-{n}}}', HUGE),
        ('{{"type":"events","afterSequence":{n},"timeoutSeconds":0}}', HUGE),
        ('{{"type":"events","afterSequence":0,"timeoutSeconds":{n}}}', HUGE),
        ('{{"type":"events","afterSequence":{n}}}', ENDLESS),
        ('{{"type":"wait","paneID":"{pane}","until":"idle","timeoutSeconds":{n}}}', "1e400"),
        ('{{"type":"list","extra":[[{{"deep":{n}}}]]}}', HUGE),
    ],
)
def test_control_requests_with_absurd_numbers(
    shared_mytty: Mytty, template: str, field: str
) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    reply = control_raw(mytty, template.format(pane=mytty.first_pane(), n=field))
    assert reply["type"] == "failure" and reply["code"] == "invalid-request", reply
    message = str(reply["message"])
    assert "number" in message or "integer" in message, message
    assert mytty.ctl("list").returncode == 0
    assert "Traceback" not in mytty.log()


@pytest.mark.parametrize("where", ["outer", "inner"])
@pytest.mark.parametrize("number", [HUGE, ENDLESS])
def test_event_envelopes_with_absurd_schema_versions(
    shared_mytty: Mytty, where: str, number: str
) -> None:
    mytty = shared_mytty  # a pane of its own, refused events: one controller for the module
    agent = open_agent_pane(mytty)
    obj = envelope_object(agent.event(K.STARTED), agent.capability)
    target = obj if where == "outer" else obj["event"]
    target["schemaVersion"] = "@@N@@"
    body = json.dumps(obj).replace('"@@N@@"', number).encode() + b"\n"
    assert send_bytes(mytty, body) == {"ok": False, "error": "invalid-request"}
    assert "Traceback" not in mytty.log()
