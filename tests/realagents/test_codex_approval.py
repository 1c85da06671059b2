"""Scenario 3 (approval) on the real Codex: a worker that inherits a lead's ``-a on-request``.

A worker spawned with ``review``/``workspace-write`` access runs with ``-a never`` (nobody is
watching its prompts), so Codex only asks when the lead's own approval policy is inherited.
Codex 0.171.0 asks before running a command outside its sandbox; its PermissionRequest hook puts
the job at ``waiting-approval``, ``send-key`` answers the dialog, and the job ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.jobs_support import agent_wait, completed, pane_of
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until


def _inheriting_worker(user: RealUser, target_name: str) -> tuple[dict[str, Any], Path]:
    target = user.work / target_name
    user.openai.script(Turn.shell(f"touch {target}", escalate=True))
    user.enable("codex")
    lead = user.m.ctl("new-tab", "--cwd", str(user.work), "--command", "codex -a on-request").json[
        "paneID"
    ]
    user.m.wait_for_text(lead, "OpenAI Codex", 60)
    job = user.spawn("codex", "Touch the file.", "--access", "inherit", "--anchor", lead)
    attention = agent_wait(user.m, job, "attention", 90)
    assert attention["timedOut"] is False, attention
    assert attention["job"]["state"] == "waiting-approval", attention
    assert not target.exists()
    user.m.wait_for_text(pane_of(job), "Would you like to run the following command?", 30)
    return job, target


def test_codex_approval_answered_with_send_key(user: RealUser) -> None:
    job, target = _inheriting_worker(user, "approved_file")
    user.m.ctl("send-key", pane_of(job), "Enter").ok()  # the first choice: yes, run it
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    wait_until(target.exists, 10, message=f"{target} to be made")
    user.assert_no_leaks("codex")


def test_codex_approval_denied_with_escape_still_ends_the_job(user: RealUser) -> None:
    job, target = _inheriting_worker(user, "denied_file")
    user.m.ctl("send-key", pane_of(job), "Escape").ok()
    done = completed(user.m, job, 90)
    # Codex prints "You canceled the request…", "Conversation interrupted"; its Interrupt hook
    # ends the job (0.171.0).
    assert done["state"] == "disconnected", done
    assert not target.exists()
    user.assert_no_leaks("codex")
