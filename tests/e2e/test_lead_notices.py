"""``agent spawn --notify-lead`` with a stand-in lead (issue 13 item 4): the lead hears of its
worker's outcome at its next prompt, through its own UserPromptSubmit hook's
``additionalContext``, exactly once, never while it is mid-turn, and not again after a
controller restart.

Real tmux, a real controller; the lead and the worker are stand-in Claude Code CLIs running
the hooks ``mytty integrations enable`` installed (each hook's stdout is in its log).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.jobs_support import completed, job_id, new_anchor, running_team, spawn, standin_in
from tests.e2e.test_hooks_e2e import hook_log, wait_hook
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

HEADER = "mytty: news from workers you spawned with --notify-lead:"


@pytest.fixture(scope="module")
def m() -> Iterator[Mytty]:
    yield from running_team(providers=("claude",))


def contexts(entries: list[dict[str, Any]]) -> list[str]:
    """The ``additionalContext`` each hook run printed ("" for a run that printed nothing)."""
    out = []
    for entry in entries:
        text = entry["stdout"].strip()
        if not text:
            out.append("")
            continue
        reply = json.loads(text)
        specific = reply["hookSpecificOutput"]
        assert specific["hookEventName"] == entry["event"], entry
        out.append(specific["additionalContext"])
    return out


def prompt(m: Mytty, pane: str, text: str) -> None:
    m.ctl("send", pane, text, "--enter")


def test_the_lead_hears_of_its_worker_at_its_next_prompt_exactly_once(m: Mytty) -> None:
    lead = new_anchor(m)
    m.ctl("send", lead, "claude", "--enter")
    pid = standin_in(m, lead, "claude").pid
    m.wait_for_text(lead, "STANDIN ready", 30)
    # The lead is mid-turn (waiting for an approval) while its worker runs and ends.
    prompt(m, lead, "@standin: approve")
    m.wait_for_text(lead, "STANDIN waiting for approval", 30)
    worker = spawn(m, "--provider", "claude", "--task", "quick", "--anchor", lead, "--notify-lead")
    plain = spawn(m, "--provider", "claude", "--task", "also quick", "--anchor", lead)
    assert completed(m, worker)["state"] == "succeeded"
    assert completed(m, plain)["state"] == "succeeded"
    prompt(m, lead, "y")  # approve: the lead's turn goes on and ends
    wait_hook(m, "claude", pid, "Stop")
    mid_turn = list(hook_log(m, "claude", pid))
    assert all(e["stdout"].strip() == "" for e in mid_turn), mid_turn  # nothing mid-turn
    assert HEADER not in m.read(lead)  # and nothing typed into the pane

    prompt(m, lead, "what is new?")
    (first, second) = wait_hook(m, "claude", pid, "UserPromptSubmit", 2)
    told = contexts([second])[0]
    assert told.startswith(HEADER), told
    assert job_id(worker) in told and "succeeded" in told
    assert job_id(plain) not in told  # spawned without --notify-lead
    assert contexts([first]) == [""]

    prompt(m, lead, "anything else?")
    third = wait_hook(m, "claude", pid, "UserPromptSubmit", 3)[2]
    assert contexts([third]) == [""]  # told once
    m.stop()
    m.start()
    prompt(m, lead, "and after a restart?")
    fourth = wait_hook(m, "claude", pid, "UserPromptSubmit", 4)[3]
    assert contexts([fourth]) == [""]  # a restart does not tell it again


def test_news_that_arrives_while_the_controller_is_down_is_told_after_the_restart(
    m: Mytty,
) -> None:
    lead = new_anchor(m)
    m.ctl("send", lead, "claude", "--enter")
    pid = standin_in(m, lead, "claude").pid
    m.wait_for_text(lead, "STANDIN ready", 30)
    worker = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "slow\n@standin: sleep 3",
        "--anchor",
        lead,
        "--notify-lead",
        "--label",
        "slow one",
    )
    assert completed(m, worker)["state"] == "succeeded"
    m.stop()  # the news is stored with the job, untold
    m.start()
    prompt(m, lead, "status?")
    entry = wait_hook(m, "claude", pid, "UserPromptSubmit")[0]
    told = contexts([entry])[0]
    assert job_id(worker) in told and '"slow one"' in told, told
