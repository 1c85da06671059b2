"""The real Claude Code and Codex at the mock's usage limit (a reset seconds ahead): the job
parks with the provider's own reset, a send is held, mytty continues the worker on its own
conversation after the margin, and the job ends ``succeeded`` with the held send delivered;
the lead's ``agent wait`` returned once, with the final answer.

Claude treats a 429 as a usage limit only for subscriber and gateway logins
(docs/dev/research/limits.md §1.1): this user's Claude logs in with a gateway JWT.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.core.events import parse_timestamp
from mytty.core.limits.park import DEFAULT_CONTINUATION
from mytty.verify.mock_api import DenyProxy, MockAPI
from mytty.verify.sandbox import agent_env, write_claude_state, write_codex_config
from tests.e2e.jobs_support import agent_result, job_id, new_repo
from tests.realagents.install import CLAUDE_VERSION, AgentCLIs
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser, close_user
from tests.standins.test_standins_limits import GATEWAY_JWT
from tests.support.harness import BackgroundCtl, Mytty

MARGIN = 2
SESSION_HEADER = {"anthropic": "x-claude-code-session-id", "openai": "session-id"}
HELD = "Then say goodbye."


@pytest.fixture
def user(agent_clis: AgentCLIs) -> Iterator[RealUser]:
    """The tier's test user, with a gateway login for Claude and short ``[limits]``."""
    anthropic, openai, proxy = MockAPI("anthropic"), MockAPI("openai"), DenyProxy()
    env = agent_env(anthropic, openai, proxy)
    del env["ANTHROPIC_API_KEY"]
    env["ANTHROPIC_AUTH_TOKEN"] = GATEWAY_JWT
    m = Mytty(extra_env=env)
    for binary in (agent_clis.claude, agent_clis.codex):
        (m.bin / binary.name).symlink_to(binary)
    work = new_repo(m.home / "work")
    write_claude_state(m.home, work, CLAUDE_VERSION)
    write_codex_config(Path(m.env["CODEX_HOME"]), work, openai)
    m.mytty_home.mkdir(mode=0o700, parents=True)
    (m.mytty_home / "config.toml").write_text(
        f"[limits]\nresume_margin_seconds = {MARGIN}\nstagger_seconds = 1\n"
    )
    u = RealUser(m, anthropic, openai, proxy, work)
    try:
        m.start()
        yield u
    finally:
        close_user(u)


def parked(m: Mytty, job: dict[str, Any], timeout: float) -> dict[str, Any]:
    reply = m.ctl(
        "agent",
        "wait",
        job_id(job),
        "--until",
        "completed",
        "--return-on-park",
        "--timeout-seconds",
        f"{timeout:g}",
        timeout=timeout + 30,
    ).json
    assert reply["timedOut"] is False and reply["job"]["state"] == "parked", reply
    snapshot: dict[str, Any] = reply["job"]
    return snapshot


@pytest.mark.parametrize(("provider", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_a_real_worker_at_its_usage_limit_parks_and_goes_on_on_its_conversation(
    user: RealUser, provider: str, api: str
) -> None:
    mock = user.anthropic if api == "anthropic" else user.openai
    user.enable(provider)
    mock.script(Turn.limit(10))
    job = user.spawn(provider, "Say hello.")
    lead = BackgroundCtl(
        user.m, "agent", "wait", job_id(job), "--until", "completed", "--timeout-seconds", "150"
    )
    snap = parked(user.m, job, 120)
    (reset,) = mock.resets
    assert parse_timestamp(snap["parkedUntil"]) == reset  # the provider's own reset
    assert parse_timestamp(snap["resumesAt"]) == reset + MARGIN
    assert snap["limit"] == "five_hour"
    assert snap["account"].startswith(f"{'claude-code' if provider == 'claude' else 'codex'}:")
    session = snap["sessionID"]
    mock.script(Turn.echo("Answer: "))
    sent = user.m.ctl("agent", "send", job_id(job), HELD, "--enter").json
    assert sent == {"type": "ok", "queued": True}
    assert lead.running()  # the park ended no wait
    try:
        result = lead.result(timeout=120).json
    except subprocess.TimeoutExpired:
        screen = user.m.read(snap["paneID"]["rawValue"])
        raise AssertionError(
            f"the job never ended; its screen:\n{screen}\nlog:\n{user.m.log()[-4000:]}"
        ) from None
    assert result["timedOut"] is False and result["job"]["state"] == "succeeded", result
    assert result["job"]["sessionID"] == session
    final = agent_result(user.m, job)
    assert final["lastAssistantMessage"] == f"Answer: {HELD}"
    # The continuation went to the same conversation, after the reset and the margin, and the
    # held send after it, once each.
    continued = user.requests_with(api, DEFAULT_CONTINUATION[:60])
    assert continued, [json.dumps(r.body)[:200] for r in mock.requests]
    first = min(continued, key=lambda r: r.at)
    assert first.headers.get(SESSION_HEADER[api]) == session
    assert first.at >= reset + MARGIN - 0.5
    held = [r for r in user.requests_with(api, HELD) if r.at >= first.at]
    assert held and all(r.headers.get(SESSION_HEADER[api]) == session for r in held)
    if provider == "codex":  # its "Approaching rate limits" dialog was open: closed with 2
        assert "closed the switch model dialog" in user.m.log(), user.m.log()[-3000:]
    user.assert_no_leaks(provider)
