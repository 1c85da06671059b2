"""The requests mytty-ctl builds for fan-out: ``agent wait`` on several jobs, ``agent list``
filters and ``agent spawn --key/--notify-lead`` (issue 13), and their usage errors."""

from __future__ import annotations

import pytest

from mytty.cli.ctl import CtlError, build_request
from mytty.control import agent_list, agent_spawn, agent_wait

A, B = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9", "1F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"


def test_one_job_keeps_the_originals_request() -> None:
    request, _, _ = build_request(agent_wait.COMMAND, [A, "--until", "completed"])
    assert request == {
        "type": "waitAgent",
        "jobID": {"rawValue": A},
        "until": "completed",
        "timeoutSeconds": 120.0,
    }


@pytest.mark.parametrize("match", ["any", "all"])
def test_several_jobs_go_out_as_job_ids_with_the_match(match: str) -> None:
    argv = [A, B, f"--{match}", "--until", "completed", "--timeout-seconds", "5"]
    request, timeout, _ = build_request(agent_wait.COMMAND, argv)
    assert request == {
        "type": "waitAgent",
        "jobID": {"rawValue": A},
        "jobIDs": [{"rawValue": A}, {"rawValue": B}],
        "match": match,
        "until": "completed",
        "timeoutSeconds": 5.0,
    }
    assert timeout > 5  # the receive timeout follows the wait


@pytest.mark.parametrize(
    "argv",
    [
        [A, B, "--until", "completed"],  # several jobs need --any or --all
        [A, B, "--any", "--all", "--until", "completed"],
        ["--any", "--until", "completed"],  # no job at all
    ],
)
def test_bad_multi_job_waits_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(CtlError) as caught:
        build_request(agent_wait.COMMAND, argv)
    assert caught.value.code == "usage"


def test_agent_list_sends_its_filters_and_checks_the_states() -> None:
    request, _, _ = build_request(
        agent_list.COMMAND, ["--state", "running,waiting-approval", "--label", "x", "--all"]
    )
    assert request == {
        "type": "listAgents",
        "states": ["running", "waiting-approval"],
        "label": "x",
        "allLeads": True,
    }
    plain, _, _ = build_request(agent_list.COMMAND, [])
    assert plain == {"type": "listAgents", "states": [], "allLeads": False}
    with pytest.raises(CtlError) as caught:
        build_request(agent_list.COMMAND, ["--state", "done"])
    assert caught.value.code == "usage"


def test_agent_spawn_sends_key_and_notify_lead() -> None:
    request, _, _ = build_request(
        agent_spawn.COMMAND,
        ["--provider", "claude", "--task", "t", "--key", "k", "--notify-lead"],
    )
    assert request["key"] == "k" and request["notifyLead"] is True
    plain, _, _ = build_request(agent_spawn.COMMAND, ["--provider", "claude", "--task", "t"])
    assert "key" not in plain and plain["notifyLead"] is False
