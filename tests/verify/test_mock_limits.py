"""The loopback mocks' usage-limit replies, as the research captured them (limits.md §1.9, §2.8)."""

from __future__ import annotations

import http.client
import json
import time

from mytty.verify.mock_api import MockAPI, Turn

ANTHROPIC_HEADERS = [
    "request-id",
    "retry-after",
    "x-should-retry",
    "anthropic-ratelimit-unified-status",
    "anthropic-ratelimit-unified-reset",
    "anthropic-ratelimit-unified-representative-claim",
    "anthropic-ratelimit-unified-5h-status",
    "anthropic-ratelimit-unified-5h-reset",
    "anthropic-ratelimit-unified-5h-utilization",
    "anthropic-ratelimit-unified-7d-status",
    "anthropic-ratelimit-unified-7d-reset",
    "anthropic-ratelimit-unified-7d-utilization",
]


def post(mock: MockAPI, path: str, body: dict[str, object]) -> http.client.HTTPResponse:
    host, port = mock.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    return conn.getresponse()


def test_anthropic_usage_limit_is_the_researched_429() -> None:
    mock = MockAPI("anthropic")
    try:
        mock.script(Turn.limit(30))
        before = time.time()
        reply = post(mock, "/v1/messages?beta=true", {"model": "m", "tools": [{}], "messages": []})
        assert reply.status == 429
        names = [k.lower() for k, _ in reply.getheaders()]
        picked = [n for n in names if n in ANTHROPIC_HEADERS]
        assert picked == ANTHROPIC_HEADERS  # all of them, in the research's order
        headers = {k.lower(): v for k, v in reply.getheaders()}
        (reset,) = mock.resets
        assert abs(reset - (before + 30)) <= 1.5
        assert headers["anthropic-ratelimit-unified-reset"] == str(reset)
        assert headers["anthropic-ratelimit-unified-representative-claim"] == "five_hour"
        assert (headers["x-should-retry"], headers["retry-after"]) == ("false", "7200")
        assert headers["connection"] == "close"
        assert json.loads(reply.read()) == {
            "type": "error",
            "error": {
                "type": "rate_limit_error",
                "message": "This request would exceed your account's rate limit. "
                "Please try again later.",
            },
        }
    finally:
        mock.close()


def test_openai_usage_limit_is_the_researched_429() -> None:
    mock = MockAPI("openai")
    try:
        mock.script(Turn.limit(7200))
        reply = post(mock, "/v1/responses", {"model": "m", "tools": [{}], "input": []})
        assert reply.status == 429
        headers = {k.lower(): v for k, v in reply.getheaders()}
        (reset,) = mock.resets
        assert headers["x-codex-primary-reset-at"] == str(reset)
        assert headers["x-codex-primary-used-percent"] == "100"
        assert headers["x-codex-primary-window-minutes"] == "300"
        assert headers["x-codex-secondary-used-percent"] == "41"
        assert headers["x-codex-active-limit"] == "codex"
        body = reply.read()
        assert json.loads(body) == {
            "error": {
                "type": "usage_limit_reached",
                "message": "The usage limit has been reached",
                "plan_type": "plus",
                "resets_at": reset,
                "resets_in_seconds": 7200,
            }
        }
        assert int(headers["content-length"]) == len(body)
    finally:
        mock.close()


def test_requests_without_tools_still_get_the_canned_answer() -> None:
    mock = MockAPI("anthropic")
    try:
        mock.script(Turn.limit(30))
        reply = post(mock, "/v1/messages", {"model": "m", "messages": [], "stream": True})
        assert reply.status == 200 and mock.resets == []
    finally:
        mock.close()
