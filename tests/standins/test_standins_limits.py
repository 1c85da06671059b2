"""The stand-ins at their provider's usage limit, one test per detail of the research
(docs/dev/research/limits.md §1 Claude Code 2.1.332, §2 codex-cli 0.171.0, §4 the checklist)."""

from __future__ import annotations

import base64
import importlib.machinery
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.standins.test_standins import (
    CLAUDE_EVENTS,
    HERE,
    Sandbox,
    box,  # noqa: F401 - fixture
    captured_keys,
    grouped,
    write_json,
)
from tests.standins.test_standins_fidelity import (
    Terminal,
    claude_hooks,
    names,
    terminals,  # noqa: F401 - fixture
    transcript_rows,
)
from tests.support.harness import wait_until

#: The gateway login of the research: an unsigned JWT whose audience is claude-gateway.
GATEWAY_JWT = (
    ".".join(
        base64.urlsafe_b64encode(json.dumps(part).encode()).decode().rstrip("=")
        for part in ({"alg": "none", "typ": "JWT"}, {"aud": "claude-gateway", "sub": "mock-user"})
    )
    + ".c2ln"
)
CODEX_EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PostModelRequest"]
#: PostModelRequest's fields as 0.171.0 sends them (research §2.4), in its order.
POST_MODEL_REQUEST_KEYS = [
    "kind",
    "request_id",
    "attempt_number",
    "session_id",
    "thread_id",
    "turn_id",
    "cwd",
    "transcript_path",
    "model",
    "hook_event_name",
    "status",
    "error",
    "token_usage",
    "response_id",
]


def standin_module(name: str) -> ModuleType:
    """A stand-in script loaded as a module (its helpers, not its main)."""
    loader = importlib.machinery.SourceFileLoader(f"standin_{name}", str(HERE / name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module
    loader.exec_module(module)
    return module


def login_env(box: Sandbox, mode: str) -> None:
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        box.env.pop(key, None)
    box.env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"
    if mode == "gateway":
        box.env["ANTHROPIC_AUTH_TOKEN"] = GATEWAY_JWT
    elif mode == "subscriber":
        box.env["CLAUDE_CODE_OAUTH_TOKEN"] = "sk-ant-oat01-mock-0000"
    else:
        box.env["ANTHROPIC_API_KEY"] = "sk-ant-mock-0000"


def run_claude(box: Sandbox, prompt: str, then: str = "/exit\n") -> str:
    out = box.run("claude", "--", prompt, stdin=then)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def error_row(box: Sandbox) -> dict[str, Any]:
    return next(r for r in transcript_rows(box) if r.get("isApiErrorMessage"))


# -- Claude -------------------------------------------------------------------------------------


def test_claude_gateway_limit_fires_stop_failure_rate_limit_and_no_stop(box: Sandbox) -> None:
    claude_hooks(box)
    login_env(box, "gateway")
    before = int(time.time())
    screen = run_claude(box, "work\n@standin: limit 3600")
    after = int(time.time())
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls] == [
        "SessionStart",
        "UserPromptSubmit",
        "StopFailure",
        "SessionEnd",
    ]
    failure = calls[2]
    assert list(failure) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "effort",
        "hook_event_name",
        "error",
        "last_assistant_message",
    ]
    assert (failure["error"], failure["effort"]) == ("rate_limit", {"level": "medium"})
    assert failure["prompt_id"] == calls[1]["prompt_id"]
    text = failure["last_assistant_message"]
    assert text.startswith("You've hit your 5-hour limit \u00b7 resets ") and text.endswith(
        " (UTC)"
    )
    assert text in screen
    row = error_row(box)
    assert row["quotaLimits"]["resetsAt"] in range(before + 3600, after + 3602)
    assert row["quotaLimits"]["rateLimitType"] == "five_hour"
    assert row["quotaLimits"]["status"] == "rejected"
    assert row["apiErrorParams"]["rate_limit_info"]["resetsAt"] == row["quotaLimits"]["resetsAt"]
    assert (row["apiError"], row["error"], row["apiErrorStatus"]) == (
        "usage_limit_reached",
        "rate_limit",
        429,
    )
    assert row["message"]["model"] == "<synthetic>"
    assert row["message"]["stop_reason"] == "stop_sequence"
    assert row["message"]["content"] == [{"type": "text", "text": text}]


def test_claude_api_key_429_is_the_plain_rejection_without_quota_fields(box: Sandbox) -> None:
    claude_hooks(box)
    login_env(box, "api-key")
    run_claude(box, "work\n@standin: limit 60")
    failure = next(
        c["payload"] for c in box.calls() if c["payload"]["hook_event_name"] == "StopFailure"
    )
    assert failure["error"] == "rate_limit"
    assert failure["last_assistant_message"] == (
        "API Error: Request rejected (429) \u00b7 This request would exceed your account's rate "
        "limit. Please try again later."
    )
    row = error_row(box)
    assert "quotaLimits" not in row and "apiError" not in row and "apiErrorParams" not in row
    assert row["apiErrorIsTransient"] is False and row["error"] == "rate_limit"
    assert "Stop" not in names(box)


def test_claude_reset_texts_as_2_1_332_formats_them() -> None:
    claude = standin_module("claude")
    now = 1796162487  # 2026-12-01T22:01:27Z
    assert claude.limit_text("five_hour", 1796169600, now) == (
        "You've hit your 5-hour limit \u00b7 resets 12am (UTC)"
    )
    assert claude.limit_text("five_hour", 1796168580, now).endswith("resets 11:43pm (UTC)")
    weekly = claude.limit_text("seven_day", 1796423160, now)
    assert weekly == "You've hit your weekly limit \u00b7 resets Dec 4, 10:26pm (UTC)"
    assert claude.limit_text("seven_day_opus", 1796423160, now).startswith(
        "You've hit your Opus limit"
    )


def test_claude_subscriber_continues_by_itself_after_the_reset(box: Sandbox) -> None:
    claude_hooks(box)
    login_env(box, "subscriber")
    box.env["MYTTY_STANDIN_AUTO_RESUME_S"] = "0.3"
    proc = box.start("claude", "--", "work\n@standin: limit 1")
    try:
        assert proc.stdin is not None
        wait_until(lambda: names(box).count("Stop") == 1, 20, message="the continuation's Stop")
        proc.stdin.write("/exit\n")
        proc.stdin.flush()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls][1:] == [
        "UserPromptSubmit",
        "StopFailure",
        "Notification",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
        "SessionEnd",
    ]
    note, again = calls[3], calls[4]
    assert (note["notification_type"], note["message"]) == (
        "quota_auto_resume_fired",
        "Usage limit reset \u2014 Claude is continuing your task",
    )
    assert again["prompt"] == (
        "Your claude.ai usage limit has reset. Continue the task you were working on when the "
        "limit was reached; do not repeat work that is already complete."
    )
    assert again["prompt_id"] != calls[1]["prompt_id"]
    rows = transcript_rows(box)
    armed = next(r for r in rows if r.get("subtype") == "informational")
    assert armed["content"].startswith(
        "Usage limit reached \u00b7 set to continue automatically at"
    )
    own = next(r for r in rows if r.get("origin", {}).get("kind") == "auto-continuation")
    assert own["isMeta"] is True and own["promptId"] == again["prompt_id"]
    ops = [r["operation"] for r in rows if r["type"] == "queue-operation"]
    assert ops == ["enqueue", "dequeue"]


def test_claude_a_prompt_typed_while_armed_cancels_its_own_continuation(box: Sandbox) -> None:
    claude_hooks(box)
    login_env(box, "subscriber")
    box.env["MYTTY_STANDIN_AUTO_RESUME_S"] = "60"
    proc = box.start("claude", "--", "work\n@standin: limit 1")
    try:
        assert proc.stdin is not None and proc.stdout is not None
        wait_until(lambda: "StopFailure" in names(box), 20, message="the limit")
        proc.stdin.write("go on, please\n")
        proc.stdin.flush()
        # The typed prompt disarms it at once (2.1.332's "manual_submit"): said on screen.
        seen = ""
        while "automatic continue cancelled" not in seen:
            line = proc.stdout.readline()
            assert line, seen
            seen += line
        wait_until(lambda: "Stop" in names(box), 20, message="the typed turn's Stop")
        proc.stdin.write("/exit\n")
        proc.stdin.flush()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    prompts = [c["payload"]["prompt"] for c in box.calls() if "prompt" in c["payload"]]
    assert prompts[1:] == ["go on, please"]  # no second, automatic continuation
    assert "Notification" not in names(box)


def test_claude_with_auto_continue_off_the_options_dialog_takes_the_keys(
    box: Sandbox, terminals: Callable[..., Terminal]
) -> None:
    handler = {"type": "command", "command": str(box.recorder), "args": ["claude-code"]}
    write_json(
        box.home / ".claude" / "settings.json",
        {**grouped(CLAUDE_EVENTS, handler), "autoContinueAtUsageLimit": False},
    )
    login_env(box, "subscriber")
    term = terminals(box, "claude", "--", "work\n@standin: limit 30")
    term.expect("What do you want to do?")
    term.expect("Enter to confirm \u00b7 Esc to cancel")
    term.type("\x1b")
    term.expect("Automatic continue cancelled")
    term.expect("STANDIN ready")
    assert "informational" not in json.dumps(transcript_rows(box))  # nothing armed


def test_claude_resume_keeps_the_session_after_a_limit(box: Sandbox) -> None:
    claude_hooks(box)
    login_env(box, "gateway")
    run_claude(box, "work\n@standin: limit 60")
    session = box.calls()[0]["payload"]["session_id"]
    out = box.run("claude", "--resume", session, "--", "please continue", stdin="/exit\n")
    assert out.returncode == 0, out.stderr
    starts = [
        c["payload"] for c in box.calls() if c["payload"]["hook_event_name"] == "SessionStart"
    ]
    assert starts[-1]["source"] == "resume" and starts[-1]["session_id"] == session


# -- Codex --------------------------------------------------------------------------------------


def codex_hooks(box: Sandbox) -> None:
    handler = {"type": "command", "command": f"'{box.recorder}' codex"}
    write_json(box.home / ".codex" / "hooks.json", grouped(CODEX_EVENTS, handler))


def rollout_rows(box: Sandbox) -> list[dict[str, Any]]:
    (path,) = (box.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_codex_limit_fires_only_a_failed_post_model_request(box: Sandbox) -> None:
    codex_hooks(box)
    before = int(time.time())
    out = box.run(
        "codex", "--no-daemon", "--", "work\n@standin: limit 7200 plan plus", stdin="/exit\n"
    )
    after = int(time.time())
    assert out.returncode == 0, out.stderr
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls] == [
        "SessionStart",
        "UserPromptSubmit",
        "PostModelRequest",
    ]  # no Stop, and no StopFailure (0.171.0 has none)
    post = calls[2]
    assert list(post) == POST_MODEL_REQUEST_KEYS
    assert (post["status"], post["token_usage"], post["response_id"]) == ("failed", None, None)
    assert post["turn_id"] == calls[1]["turn_id"]
    assert post["error"].startswith(
        "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
        "https://chatgpt.com/settings/usage to purchase more credits or try again at "
    )
    assert f"\u25a0 {post['error']}" in out.stdout
    rows = [r["payload"] for r in rollout_rows(box) if r["type"] == "event_msg"]
    count, done = rows[-2], rows[-1]
    assert count["type"] == "token_count" and count["info"] is None
    primary = count["rate_limits"]["primary"]
    assert primary["used_percent"] == 100.0 and primary["window_minutes"] == 300
    assert primary["resets_at"] in range(before + 7200, after + 7202)
    assert done["type"] == "task_complete" and done["last_agent_message"] is None
    assert done["error"] == {"message": post["error"], "codex_error_info": "usage_limit_exceeded"}
    assert list(done) == [
        "type",
        "turn_id",
        "last_agent_message",
        "error",
        "started_at",
        "completed_at",
        "duration_ms",
    ]


def test_codex_every_model_response_fires_a_completed_post_model_request(box: Sandbox) -> None:
    codex_hooks(box)
    out = box.run("codex", "--no-daemon", "--", "work", stdin="/exit\n")
    assert out.returncode == 0, out.stderr
    posts = [
        c["payload"] for c in box.calls() if c["payload"]["hook_event_name"] == "PostModelRequest"
    ]
    assert len(posts) == 2  # the tool call, then the answer
    assert all(p["status"] == "completed" and p["error"] is None for p in posts)
    assert all(p["token_usage"]["output_tokens"] == 5 and p["response_id"] for p in posts)
    assert "permission_mode" not in posts[0]
    assert names(box)[-1] == "Stop"


def test_codex_limit_without_rate_limit_headers_says_try_again_later(box: Sandbox) -> None:
    codex_hooks(box)
    out = box.run("codex", "--no-daemon", "--", "work\n@standin: limit none", stdin="/exit\n")
    assert out.returncode == 0, out.stderr
    assert "You\u2019ve hit your usage limit. Try again later." in out.stdout
    count = [r["payload"] for r in rollout_rows(box) if r["payload"].get("type") == "token_count"]
    assert count[-1]["rate_limits"]["primary"] is None
    assert count[-1]["rate_limits"]["secondary"] is None
    assert "Approaching rate limits" not in out.stdout  # no snapshot, no dialog


def test_codex_try_again_texts_as_0_171_0_formats_them() -> None:
    codex = standin_module("codex")
    assert (
        codex.usage_limit_text(None, None) == "You\u2019ve hit your usage limit. Try again later."
    )
    assert codex.usage_limit_text("team", 1796169600).endswith(
        "send a request to your admin or try again later."
    )
    assert codex.usage_limit_text("pro", 1796169600).startswith(
        "You\u2019ve hit your usage limit. Visit https://chatgpt.com/settings/usage"
    )
    assert (
        codex._ordinal(2) == "2nd" and codex._ordinal(11) == "11th" and codex._ordinal(23) == "23rd"
    )


def test_codex_switch_dialog_a_blind_enter_switches_the_model(
    box: Sandbox, terminals: Callable[..., Terminal]
) -> None:
    codex_hooks(box)
    term = terminals(box, "codex", "--no-daemon", "--", "work\n@standin: limit 600")
    term.expect("Approaching rate limits")
    term.expect("enter select \u00b7 esc back")
    term.type("\r")
    term.expect("STANDIN model switched to gpt-6-luna")
    term.expect("STANDIN ready")
    term.type("next\n")
    wait_until(lambda: names(box).count("UserPromptSubmit") == 2, 20)
    assert box.calls()[-1]["payload"]["model"] == "gpt-6-luna"


def test_codex_switch_dialog_2_keeps_the_model(
    box: Sandbox, terminals: Callable[..., Terminal]
) -> None:
    codex_hooks(box)
    term = terminals(box, "codex", "--no-daemon", "-m", "gpt-mock", "--", "w\n@standin: limit 600")
    term.expect("Approaching rate limits")
    term.type("2")
    term.expect("STANDIN model kept")
    term.expect("STANDIN ready")
    term.type("next\n")
    wait_until(lambda: names(box).count("UserPromptSubmit") == 2, 20)
    assert {c["payload"]["model"] for c in box.calls() if "model" in c["payload"]} == {"gpt-mock"}


def test_codex_a_later_prompt_goes_on_in_the_same_rollout(box: Sandbox) -> None:
    codex_hooks(box)
    out = box.run("codex", "--no-daemon", "--", "w\n@standin: limit none", stdin="again\n/exit\n")
    assert out.returncode == 0, out.stderr
    assert names(box)[-1] == "Stop"
    sessions = {c["payload"]["session_id"] for c in box.calls()}
    assert len(sessions) == 1
    assert captured_keys("codex")["Stop"] <= set(box.calls()[-1]["payload"])
    assert len(list((box.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))) == 1


def test_claude_error_row_has_every_field_of_the_captured_one(box: Sandbox) -> None:
    """The stand-in's row against the row the real 2.1.332 wrote (tests/core fixture)."""
    fixtures = Path(__file__).parents[1] / "core" / "transcripts" / "fixtures" / "transcripts"
    real = next(
        row
        for line in (fixtures / "claude_usage_limit.jsonl").read_text().splitlines()
        if (row := json.loads(line)).get("isApiErrorMessage")
    )
    claude_hooks(box)
    login_env(box, "gateway")
    run_claude(box, "work\n@standin: limit 60 seven_day")
    ours = error_row(box)
    unknowable = {"gitBranch", "parentUuid"}  # the stand-in runs in no repository, no thread
    assert set(real) - unknowable <= set(ours)
    assert set(ours["quotaLimits"]) == set(real["quotaLimits"])
    assert set(ours["apiErrorParams"]["rate_limit_info"]) == set(
        real["apiErrorParams"]["rate_limit_info"]
    )
    assert ours["quotaLimits"]["rateLimitType"] == "seven_day"
    assert {"id", "model", "role", "stop_reason", "usage", "content"} <= set(ours["message"])
