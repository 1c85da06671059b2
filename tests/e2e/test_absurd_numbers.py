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


@pytest.mark.parametrize(
    ("request_", "maximum"),
    [
        ({"type": "wait", "until": "idle", "timeoutSeconds": 99999999999}, 604800),
        ({"type": "wait", "until": "idle", "timeoutSeconds": -5}, 604800),
        ({"type": "events", "afterSequence": 0, "timeoutSeconds": 100000}, 600),
        ({"type": "events", "afterSequence": 0, "timeoutSeconds": -0.5}, 600),
    ],
)
def test_a_timeout_out_of_range_is_refused_at_once(
    mytty: Mytty, request_: dict[str, object], maximum: int
) -> None:
    # Issue 26 #7: such a wait blocked for ever, returned at once, or was cut to 600 in silence.
    body = dict(request_, paneID=mytty.first_pane()) if request_["type"] == "wait" else request_
    reply = control_raw(mytty, json.dumps(body))
    assert reply == {
        "type": "failure",
        "code": "invalid-request",
        "message": f"field 'timeoutSeconds' must be between 0 and {maximum}",
    }


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
