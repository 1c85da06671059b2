"""Fixtures of the web view's fast tests: the real application (guard, pages, stream, answers)
in front of an in-memory controller, driven by aiohttp's test client, with time as an input."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from mytty.core.errors import ErrorCode, MyttyError
from mytty.web import sessions as sessions_mod
from mytty.web.app import make_app
from mytty.web.context import Web
from mytty.web.control import Controller, Place
from mytty.web.listen import Listen
from mytty.web.live import Live
from mytty.web.sessions import Sessions
from mytty.web.state import StateFile
from mytty.web.throttle import PairingThrottle

PANE_A = "11111111-1111-4111-8111-111111111111"
PANE_B = "22222222-2222-4222-8222-222222222222"
JOB_A = "AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA"
RUN_A = "33333333-3333-4333-8333-333333333333"
START = 1_800_000_000.0


class Clock:
    """Time the tests move."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def pane(pane_id: str, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "paneID": pane_id,
        "windowID": "$1",
        "tabID": "@1",
        "title": "bash",
        "command": "claude",
        "workingDirectory": "/tmp",
        "isActive": False,
    }
    entry.update(fields)
    return entry


def job(job_id: str, pane_id: str, state: str, **fields: Any) -> dict[str, Any]:
    snapshot: dict[str, Any] = {
        "jobID": {"rawValue": job_id},
        "paneID": {"rawValue": pane_id},
        "provider": "claude",
        "state": state,
        "runID": None,
        "sessionID": None,
        "message": None,
    }
    snapshot.update(fields)
    return snapshot


class FakeController(Controller):
    """Answers the requests the web view makes from plain lists; records what it was told."""

    def __init__(self) -> None:
        super().__init__(places=lambda: dict(self.place_map))
        self.panes: list[dict[str, Any]] = []
        self.jobs: list[dict[str, Any]] = []
        self.attention: list[dict[str, Any]] = []
        self.approvals: list[dict[str, Any]] = []
        self.place_map: dict[str, Place] = {}
        self.screens: dict[str, str] = {}
        self.results: dict[str, str | None] = {}
        self.down = False
        self.told: list[tuple[str, dict[str, Any]]] = []
        self.refuse: dict[str, MyttyError] = {}
        self.sequence = 0
        self._changed: asyncio.Event | None = None

    def changed(self) -> None:
        """An event arrived (wakes the long poll)."""
        self.sequence += 1
        if self._changed is not None:
            self._changed.set()

    async def events(self, after: int | None, timeout: float) -> dict[str, Any]:
        if self.down:
            raise MyttyError(ErrorCode.NOT_RUNNING, "no controller")
        if self._changed is None:
            self._changed = asyncio.Event()
        if after is not None and self.sequence <= after:
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except TimeoutError:
                pass
        records = (
            [{"sequence": self.sequence}] if after is not None and self.sequence > after else []
        )
        return {"type": "events", "records": records, "latestSequence": self.sequence}

    async def ask(
        self,
        command: str,
        values: Mapping[str, object] | None = None,
        *,
        timeout: float = 10.0,
    ) -> dict[str, Any]:
        if self.down:
            raise MyttyError(ErrorCode.NOT_RUNNING, "no controller")
        values = dict(values or {})
        if command in self.refuse:
            raise self.refuse[command]
        if command == "list":
            return {"type": "list", "panes": copy.deepcopy(self.panes)}
        if command == "agent list":
            return {"type": "agentJobs", "jobs": copy.deepcopy(self.jobs)}
        if command == "attention":
            return {"type": "attention", "items": copy.deepcopy(self.attention)}
        if command == "approval list":
            return {"type": "approvals", "approvals": copy.deepcopy(self.approvals)}
        if command == "agent result":
            wanted = values["JOB"]["rawValue"]  # type: ignore[index]
            found = [j for j in self.jobs if j["jobID"]["rawValue"] == wanted]
            if not found:
                raise MyttyError(ErrorCode.JOB_NOT_FOUND, "no such job")
            pane_id = found[0]["paneID"]["rawValue"]
            return {
                "type": "agentResult",
                "job": copy.deepcopy(found[0]),
                "content": {"paneID": pane_id, "text": self.screens.get(pane_id, "")},
                "lastAssistantMessage": self.results.get(wanted),
            }
        if command == "read":
            pane_id = str(values["PANE"])
            if pane_id not in self.screens:
                raise MyttyError(ErrorCode.PANE_NOT_FOUND, "no such pane")
            return {
                "type": "content",
                "content": {"paneID": pane_id, "text": self.screens[pane_id]},
            }
        if command == "explain":
            return {"type": "explanation", "summary": "a summary", "run": None, "evidence": []}
        self.told.append((command, values))
        if command == "approval answer":
            self.approvals = [a for a in self.approvals if a["id"] != values["ID"]]
            self.changed()
            return {"type": "approval"}
        return {"type": "ok"}


class WebHarness:
    """The application on a loopback test server, with its own state directory and clock."""

    def __init__(self, directory: Path, *, tls: bool = False) -> None:
        self.clock = Clock()
        self.controller = FakeController()
        self.sessions = Sessions(StateFile(directory), self.clock)
        self.live = Live(self.controller, refresh_s=0.2)
        self.parts = Web(
            Listen("127.0.0.1", 0, True),
            tls,
            self.sessions,
            self.controller,
            self.live,
            PairingThrottle(),
            self.clock,
        )
        self.app: web.Application = make_app(self.parts)
        self.client: TestClient[web.Request, web.Application] | None = None

    @property
    def http(self) -> TestClient[web.Request, web.Application]:
        assert self.client is not None
        return self.client

    @property
    def origin(self) -> str:
        return f"http://{self.http.host}:{self.http.port}"

    def token(self) -> str | None:
        for cookie in self.http.session.cookie_jar:
            if cookie.key == self.parts.cookie:
                return cookie.value
        return None

    async def pair(self) -> str:
        """Pair the test client; the session token its cookie holds."""
        code = self.sessions.issue_code()
        response = await self.http.get(f"/pair/{code}")
        assert response.status == 200, await response.text()
        token = self.token()
        assert token is not None
        return token

    def answer_headers(self, token: str) -> dict[str, str]:
        return {"Origin": self.origin, "X-CSRF-Token": sessions_mod.csrf_token(token)}

    def run(self, body: Callable[[WebHarness], Awaitable[None]]) -> None:
        async def main() -> None:
            self.client = TestClient(TestServer(self.app))
            await self.client.start_server()
            try:
                await body(self)
            finally:
                await self.client.close()

        asyncio.run(main())


async def read_event(stream: Any, name: str, timeout: float = 10.0) -> str:
    """The data of the next server-sent event called ``name`` on ``stream`` (a response)."""
    buffer = b""

    async def until() -> str:
        nonlocal buffer
        while True:
            marker = f"event: {name}\n".encode()
            start = buffer.find(marker)
            if start >= 0 and (end := buffer.find(b"\n\n", start)) >= 0:
                block = buffer[start:end].decode()
                return "\n".join(
                    line[len("data: ") :] for line in block.split("\n") if line.startswith("data: ")
                )
            chunk = await stream.content.readany()
            if not chunk:
                raise AssertionError(f"the stream ended before an {name!r} event: {buffer!r}")
            buffer += chunk

    return await asyncio.wait_for(until(), timeout)


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[WebHarness]:
    yield WebHarness(tmp_path / "web")
