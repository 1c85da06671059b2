"""The web view's guard, pairing and sessions against a real application (in-memory controller):
401 without a session on every route, one-time and expiring codes with time driven, rate-limited
pairing, Origin and CSRF on every POST, the loopback Host check, the headers, revocation, and
no secret in a page, a URL or a log line."""

from __future__ import annotations

import asyncio
import logging

import pytest

from mytty.web import sessions as sessions_mod
from mytty.web.html import CSP
from mytty.web.sessions import CODE_TTL_S, Sessions
from mytty.web.state import StateFile
from mytty.web.throttle import PER_CLIENT, WINDOW_S
from tests.web.conftest import JOB_A, PANE_A, WebHarness, job, pane, read_event

#: Every route, with a path that would match it (and one that matches none).
ROUTES = [
    ("GET", "/"),
    ("GET", f"/job/{JOB_A}"),
    ("GET", f"/pane/{PANE_A}"),
    ("GET", "/events"),
    ("GET", "/events?view=home"),
    ("GET", "/static/app.js"),
    ("GET", "/static/app.css"),
    ("GET", "/favicon.ico"),
    ("GET", "/no-such-page"),
    ("HEAD", "/"),
    ("POST", "/approvals/1234"),
    ("POST", "/questions/1234"),
    ("POST", "/signout"),
    ("POST", "/"),
    ("PUT", "/"),
    ("DELETE", "/job/x"),
    ("GET", "/pair/not-a-code"),
    ("GET", "/pair/"),
]


def test_every_route_without_a_session_is_401_and_carries_the_headers(
    harness: WebHarness,
) -> None:
    async def body(h: WebHarness) -> None:
        for method, path in ROUTES:
            response = await h.http.request(method, path, headers={"Origin": h.origin})
            assert response.status == 401, (method, path, response.status)
            assert response.headers["Content-Security-Policy"] == CSP, (method, path)
            assert response.headers["X-Frame-Options"] == "DENY"
            assert response.headers["Cache-Control"] == "no-store"
        # A cookie that names no session is no session either.
        h.http.session.cookie_jar.update_cookies({h.parts.cookie: "x" * 43})
        for method, path in ROUTES:
            response = await h.http.request(method, path, headers={"Origin": h.origin})
            assert response.status == 401, (method, path)

    harness.run(body)


def test_a_code_pairs_once_and_the_cookie_is_httponly_strict(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        code = h.sessions.issue_code()
        first = await h.http.get(f"/pair/{code}")
        assert first.status == 200
        cookie = first.headers["Set-Cookie"]
        assert cookie.startswith("mytty_session=")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie  # plain http on loopback: a Secure cookie would be lost
        assert (await h.http.get("/")).status == 200
        # The same link again, from a browser without the cookie: refused.
        h.http.session.cookie_jar.clear()
        again = await h.http.get(f"/pair/{code}")
        assert again.status == 401
        assert "Set-Cookie" not in again.headers
        assert (await h.http.get("/")).status == 401

    harness.run(body)


def test_an_expired_code_is_refused_with_time_moved_not_waited(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        code = h.sessions.issue_code()
        h.clock.advance(CODE_TTL_S - 1)
        fresh = h.sessions.issue_code()  # still valid at the end
        h.clock.advance(2)
        assert (await h.http.get(f"/pair/{code}")).status == 401
        assert (await h.http.get(f"/pair/{fresh}")).status == 200

    harness.run(body)


def test_sessions_expire_and_revoke_all_ends_them(harness: WebHarness, tmp_path) -> None:
    async def body(h: WebHarness) -> None:
        await h.pair()
        assert (await h.http.get("/")).status == 200
        # Another process (`mytty web --revoke-all`) writes the same state file.
        other = Sessions(StateFile(h.sessions.file.directory), h.clock)
        assert other.revoke_all() == 1
        assert (await h.http.get("/")).status == 401
        await h.pair()
        h.clock.advance(sessions_mod.SESSION_TTL_S + 1)
        assert (await h.http.get("/")).status == 401

    harness.run(body)


def test_pairing_attempts_are_rate_limited_by_time_window(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        for _ in range(PER_CLIENT):
            assert (await h.http.get("/pair/wrongwrongwrongwrong00")).status == 401
        code = h.sessions.issue_code()
        limited = await h.http.get(f"/pair/{code}")
        assert limited.status == 429  # even the right code waits out the window
        assert int(limited.headers["Retry-After"]) > 0
        h.clock.advance(WINDOW_S + 1)
        assert (await h.http.get(f"/pair/{code}")).status == 200

    harness.run(body)


@pytest.mark.parametrize("path", ["/questions/1234", "/approvals/1234", "/signout"])
def test_a_post_needs_the_csrf_token_and_this_origin(harness: WebHarness, path: str) -> None:
    async def body(h: WebHarness) -> None:
        token = await h.pair()
        good = h.answer_headers(token)
        cases = [
            {"Origin": h.origin},  # no token
            {**good, "X-CSRF-Token": "0" * 43},  # a wrong token
            {"X-CSRF-Token": good["X-CSRF-Token"]},  # no Origin
            {**good, "Origin": "http://evil.example"},  # another origin
            {**good, "Origin": f"https://{h.http.host}:{h.http.port}"},  # another scheme
            {**good, "Sec-Fetch-Site": "cross-site"},
        ]
        for headers in cases:
            response = await h.http.post(path, data={"answer": "x"}, headers=headers)
            assert response.status == 403, (path, headers)
        assert h.controller.told == []  # nothing reached the controller
        # The page's own request passes the guard (what the handler then says is its own).
        response = await h.http.post(path, data={"answer": "x"}, headers=good)
        assert response.status != 403

    harness.run(body)


def test_sign_out_ends_this_session_only(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        other = Sessions(StateFile(h.sessions.file.directory), h.clock)
        kept = other.redeem(other.issue_code(), "another browser")
        assert kept is not None
        token = await h.pair()
        response = await h.http.post("/signout", headers=h.answer_headers(token))
        assert response.status == 200
        assert "Max-Age=0" in response.headers["Set-Cookie"]  # the cookie is dropped
        assert (await h.http.get("/")).status == 401
        assert h.sessions.find(kept.token) is not None

    harness.run(body)


def test_a_host_that_is_not_loopback_is_refused(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        code = h.sessions.issue_code()
        response = await h.http.get(f"/pair/{code}", headers={"Host": "evil.example:8765"})
        assert response.status == 421
        for host in ("localhost:9000", "127.0.0.1", "[::1]:8765"):
            assert (await h.http.get("/", headers={"Host": host})).status == 401, host
        assert (await h.http.get(f"/pair/{code}", headers={"Host": "localhost:9000"})).status == 200

    harness.run(body)


def test_no_secret_in_a_page_a_url_or_a_log_line(
    harness: WebHarness, caplog: pytest.LogCaptureFixture
) -> None:
    harness.controller.panes = [pane(PANE_A, provider="claude-code", agentState="running")]
    harness.controller.jobs = [job(JOB_A, PANE_A, "running", label="scan")]
    harness.controller.screens[PANE_A] = "hello"

    async def body(h: WebHarness) -> None:
        with caplog.at_level(logging.DEBUG, logger="mytty.web"):
            await h.http.get("/pair/aaaaaaaaaaaaaaaaaaaaaa")  # a wrong one is logged, not shown
            code = h.sessions.issue_code()
            paired = await h.http.get(f"/pair/{code}")
            token = h.token()
            assert token is not None
            pages = [await paired.text()]
            for path in ("/", f"/job/{JOB_A}", f"/pane/{PANE_A}", "/static/app.js"):
                response = await h.http.get(path)
                assert response.status == 200, path
                assert code not in str(response.url) and token not in str(response.url)
                pages.append(await response.text())
            async with h.http.get("/events?view=home") as stream:
                pages.append(await read_event(stream, "board"))
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "paired session web-" in logged
        for secret in (code, token, "aaaaaaaaaaaaaaaaaaaaaa"):
            assert secret not in logged
            for text in pages:
                assert secret not in text
        stored = h.sessions.file.path.read_text()
        assert code not in stored and token not in stored  # only digests are kept

    harness.run(body)


def test_a_stream_ends_when_its_session_is_revoked(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        await h.pair()
        async with h.http.get("/events?view=home") as stream:
            assert stream.status == 200
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            assert "board" in await read_event(stream, "board")
            Sessions(StateFile(h.sessions.file.directory), h.clock).revoke_all()
            assert "Pair again" in await read_event(stream, "signed-out")
            assert await asyncio.wait_for(stream.content.read(), 10) == b""  # and it closed

    harness.run(body)


def test_the_tls_cookie_is_secure_and_host_prefixed(tmp_path) -> None:
    h = WebHarness(tmp_path / "web", tls=True)

    async def body(h: WebHarness) -> None:
        code = h.sessions.issue_code()
        cookie = (await h.http.get(f"/pair/{code}")).headers["Set-Cookie"]
        assert cookie.startswith("__Host-mytty_session=")
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie

    h.run(body)
