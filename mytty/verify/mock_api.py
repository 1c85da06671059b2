"""Loopback mock model APIs and a refusing proxy: what real agents talk to when mytty drives them.

``mytty integrations verify`` and the real-agent test tier (tests/realagents) run the vendor CLIs
against these instead of the real model APIs, so no request leaves 127.0.0.1 and no tokens are
spent. Each server binds 127.0.0.1 on a free port, runs in a daemon thread of the calling process
and logs every request it gets. A test scripts what the model "says" with a :class:`Turn`: the first
request of a turn gets the scripted reply (plain text, a shell tool call, or an HTTP error); a
request whose newest input is a tool's result gets ``Tool finished: <first output line>``, so a
tool call ends the turn after one round trip. Requests that offer no tools (side requests such
as a title) get a short canned text.

The protocol facts (endpoints, SSE event order, the shell tool's name and arguments) are those
observed from Claude Code 2.1.332 and Codex 0.171.0 (shared/reference/real-agents.md §2.2, §3.2).
"""

from __future__ import annotations

import itertools
import json
import socketserver
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"
CANNED = "Mock side answer."
SUBAGENT_TASK = "MOCK-SUBAGENT-TASK: report back."
SUBAGENT_REPORT = "Subagent report."


@dataclass(frozen=True)
class Turn:
    """What the mock model does with a new prompt.

    ``kind`` is ``answer`` (say ``text``; ``echo`` says ``text`` followed by the first line of the
    newest prompt, so concurrent workers get different answers), ``shell`` (run ``command`` with the shell tool, then
    say ``Tool finished: …``) or ``error`` (answer HTTP ``status`` with ``text`` as the error).
    ``subagent`` starts a subagent with a task holding :data:`SUBAGENT_TASK` (Claude: the
    ``Agent`` tool; Codex: ``spawn_agent`` of its ``multi_agent_v1`` tools, once per script);
    the subagent's own prompt is answered ``Subagent report.`` after ``delay`` seconds, and
    Claude's synthetic ``<task-notification>`` prompt that follows is answered with ``text``; with
    ``parent_delay`` the parent's own reply to the Agent tool's result is held that long, so a
    quick subagent reports before its parent's turn ends (the ordering 2.1.332 showed then).
    ``escalate`` asks Codex to run the command outside its sandbox (its approval path).
    ``limit`` answers every new prompt with the account's usage limit, as each API sends it
    (HTTP 429 with the reset ``resets_in`` seconds after the request, byte for byte the
    research's replies: docs/dev/research/limits.md §1.9, §2.8), until the script changes;
    the resets sent are in :attr:`MockAPI.resets`.
    """

    kind: str
    text: str = ""
    command: str = ""
    status: int = 400
    escalate: bool = False
    delay: float = 0.0  # seconds the first reply of a turn is held back (a busy model)
    parent_delay: float = 0.0  # subagent: seconds the parent's reply to the tool result waits
    resets_in: float = 0.0  # limit: seconds from the request to the reset

    @staticmethod
    def answer(text: str, *, delay: float = 0.0) -> Turn:
        return Turn("answer", text=text, delay=delay)

    @staticmethod
    def subagent(final: str, *, delay: float = 0.0, parent_delay: float = 0.0) -> Turn:
        return Turn("subagent", text=final, delay=delay, parent_delay=parent_delay)

    @staticmethod
    def echo(prefix: str) -> Turn:
        return Turn("echo", text=prefix)

    @staticmethod
    def shell(command: str, *, escalate: bool = False) -> Turn:
        return Turn("shell", command=command, escalate=escalate)

    @staticmethod
    def ask(question: str) -> Turn:
        """Claude: ask the user ``question`` with the AskUserQuestion tool (two options)."""
        return Turn("ask", text=question)

    @staticmethod
    def error(status: int, message: str) -> Turn:
        return Turn("error", text=message, status=status)

    @staticmethod
    def limit(resets_in: float, *, window: str = "five_hour", plan: str = "plus") -> Turn:
        """The account's usage limit (``window``: Claude's claim; ``plan``: Codex's plan)."""
        return Turn("limit", text=window, command=plan, status=429, resets_in=resets_in)


@dataclass
class Logged:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    #: When the request came (Unix seconds).
    at: float = field(default_factory=time.time)


@dataclass
class _State:
    turn: Turn = field(default_factory=lambda: Turn.answer("Hello from the mock model."))
    requests: list[Logged] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    #: Codex: the scripted subagent was spawned (later prompts of the parent get turn.text).
    spawned: bool = False
    #: The reset times (Unix seconds) of the usage limits answered, oldest first.
    resets: list[int] = field(default_factory=list)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        # An agent that hangs up mid-reply (an interrupt, a retry) is not the mock's error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _MockHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log is the record; stderr stays quiet

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode(errors="replace")

    def _log(self, body: Any) -> int:
        state = self.server.state
        with state.lock:
            state.requests.append(
                Logged(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
            )
            return next(state.ids)

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", "req_mock_error")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _limit(self, turn: Turn, headers: list[tuple[str, str]], body: dict[str, Any]) -> None:
        """A usage-limit 429 with ``headers`` in this order (``Connection: close``, as sent)."""
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(429)
        self.send_header("Content-Type", "application/json")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _reset_of(self, turn: Turn) -> int:
        reset = round(time.time() + turn.resets_in)
        with self.server.state.lock:
            self.server.state.resets.append(reset)
        return reset

    def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", "req_mock_stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self._log(None)
        self._json(404, {"error": {"message": "not mocked"}})


def first_line(output: Any) -> str:
    """The first line of a tool result, whatever shape the agent sent it in."""
    if isinstance(output, list):
        output = " ".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
    text = str(output or "").strip()
    return text.splitlines()[0] if text else "(no output)"


def _hold(turn: Turn, body: dict[str, Any]) -> None:
    """Keep a new prompt's reply back for ``turn.delay`` (tool results and side requests not)."""
    fresh = _anthropic_tool_result(body) is None and _openai_tool_result(body) is None
    if turn.delay and fresh and body.get("tools") and turn.kind != "subagent":
        time.sleep(turn.delay)


def _said(turn: Turn, prompt: str) -> str:
    if turn.kind != "echo":
        return turn.text
    lines = prompt.strip().splitlines()
    return f"{turn.text}{lines[0] if lines else ''}"


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


# -- Anthropic Messages API ----------------------------------------------------------------------


class _AnthropicHandler(_MockHandler):
    def do_POST(self) -> None:
        body = self._read_body()
        n = self._log(body)
        if not self.path.startswith("/v1/messages") or not isinstance(body, dict):
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "?"}})
            return
        if self.path.startswith("/v1/messages/count_tokens"):
            self._json(200, {"input_tokens": 10})
            return
        turn = self.server.state.turn
        _hold(turn, body)
        result = _anthropic_tool_result(body)
        if not body.get("tools"):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": CANNED}]
        elif result is not None:
            if turn.kind == "subagent":
                time.sleep(turn.parent_delay)
            blocks = [{"type": "text", "text": f"Tool finished: {first_line(result)}"}]
        elif turn.kind == "error":
            self._json(
                turn.status,
                {"type": "error", "error": {"type": "invalid_request_error", "message": turn.text}},
            )
            return
        elif turn.kind == "limit":
            self._anthropic_limit(turn)
            return
        elif turn.kind == "subagent":
            blocks = self._subagent(turn, n, _anthropic_prompt(body))
        elif turn.kind == "ask":
            question = {
                "question": turn.text,
                "header": "Choice",
                "options": [
                    {"label": "First", "description": "The first option"},
                    {"label": "Second", "description": "The second option"},
                ],
                "multiSelect": False,
            }
            blocks = [
                {
                    "type": "tool_use",
                    "id": f"toolu_mock_{n:04d}",
                    "name": "AskUserQuestion",
                    "input": {"questions": [question]},
                }
            ]
        elif turn.kind == "shell":
            command = {"command": turn.command, "description": "Run the scripted command"}
            blocks = [
                {"type": "tool_use", "id": f"toolu_mock_{n:04d}", "name": "Bash", "input": command}
            ]
        else:
            blocks = [{"type": "text", "text": _said(turn, _anthropic_prompt(body))}]
        self._sse(_anthropic_events(n, str(body.get("model", "mock")), blocks))

    def _anthropic_limit(self, turn: Turn) -> None:
        """Research §1.9: no retry (``x-should-retry: false``, ``retry-after`` over 60 s); a
        subscriber or gateway login reads the claim and the reset, an API key only the body."""
        reset = self._reset_of(turn)
        week = reset + 432000
        five = turn.text == "five_hour"
        headers = [
            ("request-id", "req_mock_limit"),
            ("retry-after", "7200"),
            ("x-should-retry", "false"),
            ("anthropic-ratelimit-unified-status", "rejected"),
            ("anthropic-ratelimit-unified-reset", str(reset)),
            ("anthropic-ratelimit-unified-representative-claim", turn.text),
            ("anthropic-ratelimit-unified-5h-status", "rejected" if five else "allowed"),
            ("anthropic-ratelimit-unified-5h-reset", str(reset if five else week)),
            ("anthropic-ratelimit-unified-5h-utilization", "1.0" if five else "0.42"),
            ("anthropic-ratelimit-unified-7d-status", "allowed" if five else "rejected"),
            ("anthropic-ratelimit-unified-7d-reset", str(week if five else reset)),
            ("anthropic-ratelimit-unified-7d-utilization", "0.42" if five else "1.0"),
        ]
        message = "This request would exceed your account's rate limit. Please try again later."
        self._limit(
            turn,
            headers,
            {"type": "error", "error": {"type": "rate_limit_error", "message": message}},
        )

    def _subagent(self, turn: Turn, n: int, prompt: str) -> list[dict[str, Any]]:
        if "<task-notification>" in prompt:
            return [{"type": "text", "text": turn.text}]
        if SUBAGENT_TASK in prompt:
            time.sleep(turn.delay)
            return [{"type": "text", "text": SUBAGENT_REPORT}]
        task = {
            "description": "Scripted subagent",
            "prompt": SUBAGENT_TASK,
            "subagent_type": "general-purpose",
        }
        return [{"type": "tool_use", "id": f"toolu_mock_{n:04d}", "name": "Agent", "input": task}]


def _anthropic_tool_result(body: dict[str, Any]) -> Any:
    """The newest user message's tool_result content, or None when it carries none."""
    messages = body.get("messages") or []
    if not messages or messages[-1].get("role") != "user":
        return None
    content = messages[-1].get("content")
    if not isinstance(content, list):
        return None
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            return block.get("content")
    return None


def _anthropic_prompt(body: dict[str, Any]) -> str:
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    return _texts(users[-1].get("content")) if users else ""


def _anthropic_events(
    n: int, model: str, blocks: list[dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    message: dict[str, Any] = {
        "id": f"msg_mock_{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message}),
        ("ping", {"type": "ping"}),
    ]
    stop_reason = "end_turn"
    for i, block in enumerate(blocks):
        if block["type"] == "tool_use":
            stop_reason = "tool_use"
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


# -- OpenAI Responses API --------------------------------------------------------------------------


class _OpenAIHandler(_MockHandler):
    def do_POST(self) -> None:
        body = self._read_body()
        n = self._log(body)
        if not self.path.startswith("/v1/responses") or not isinstance(body, dict):
            self._json(404, {"error": {"message": "not mocked", "type": "invalid_request_error"}})
            return
        turn = self.server.state.turn
        _hold(turn, body)
        result = _openai_tool_result(body)
        if not body.get("tools"):
            items: list[dict[str, Any]] = [_openai_message(n, CANNED)]
        elif result is not None:
            items = [_openai_message(n, f"Tool finished: {first_line(result)}")]
        elif turn.kind == "error":
            self._json(
                turn.status,
                {"error": {"message": turn.text, "type": "invalid_request_error", "code": None}},
            )
            return
        elif turn.kind == "limit":
            self._openai_limit(turn)
            return
        elif turn.kind == "subagent":
            items = self._subagent(turn, n, body)
        elif turn.kind == "shell":
            args: dict[str, Any] = {"cmd": turn.command, "yield_time_ms": 1000}
            if turn.escalate:
                args |= {
                    "sandbox_permissions": "require_escalated",
                    "justification": "The scripted command writes outside the sandbox.",
                }
            items = [
                {
                    "id": f"fc_mock_{n:04d}",
                    "type": "function_call",
                    "status": "completed",
                    "call_id": f"call_mock_{n:04d}",
                    "name": "exec_command",
                    "arguments": json.dumps(args),
                }
            ]
        else:
            items = [_openai_message(n, _said(turn, _openai_prompt(body)))]
        self._sse(_openai_events(n, str(body.get("model", "mock")), items))

    def _openai_limit(self, turn: Turn) -> None:
        """Research §2.8: ``usage_limit_reached`` with ``resets_at`` (Codex never retries a 429);
        the x-codex headers give the rate-limit snapshot its rollout keeps."""
        reset = self._reset_of(turn)
        five = turn.text != "seven_day"
        primary, secondary = (reset, reset + 432000) if five else (reset - 3600, reset)
        headers = [
            ("x-request-id", "req_mock_limit"),
            ("x-codex-active-limit", "codex"),
            ("x-codex-plan-type", turn.command),
            ("x-codex-primary-used-percent", "100" if five else "41"),
            ("x-codex-primary-window-minutes", "300"),
            ("x-codex-primary-reset-at", str(primary)),
            ("x-codex-secondary-used-percent", "41" if five else "100"),
            ("x-codex-secondary-window-minutes", "10080"),
            ("x-codex-secondary-reset-at", str(secondary)),
            ("x-codex-credits-has-credits", "False"),
            ("x-codex-credits-unlimited", "False"),
            ("x-codex-credits-balance", "0"),
        ]
        error = {
            "type": "usage_limit_reached",
            "message": "The usage limit has been reached",
            "plan_type": turn.command,
            "resets_at": reset,
            "resets_in_seconds": max(0, round(turn.resets_in)),
        }
        self._limit(turn, headers, {"error": error})

    def _subagent(self, turn: Turn, n: int, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Codex: ``spawn_agent`` of its ``multi_agent_v1`` namespace; the subagent's own
        prompt gets the report, any later prompt of the parent ``turn.text``. Only a request
        that offers those tools spawns (not a side request, e.g. the task-title one)."""
        prompt = _openai_prompt(body)
        if SUBAGENT_TASK in prompt:
            time.sleep(turn.delay)
            return [_openai_message(n, SUBAGENT_REPORT)]
        offered = any(
            isinstance(t, dict) and t.get("name") == "multi_agent_v1" for t in body["tools"]
        )
        if self.server.state.spawned or not offered:
            return [_openai_message(n, turn.text)]
        self.server.state.spawned = True
        return [
            {
                "id": f"fc_mock_{n:04d}",
                "type": "function_call",
                "status": "completed",
                "call_id": f"call_mock_{n:04d}",
                "namespace": "multi_agent_v1",
                "name": "spawn_agent",
                "arguments": json.dumps({"message": SUBAGENT_TASK}),
            }
        ]


def _openai_tool_result(body: dict[str, Any]) -> Any:
    items = body.get("input")
    if not isinstance(items, list) or not items:
        return None
    last = items[-1]
    if isinstance(last, dict) and last.get("type") == "function_call_output":
        return last.get("output")
    return None


def _openai_prompt(body: dict[str, Any]) -> str:
    items = body.get("input")
    users = [
        i
        for i in (items if isinstance(items, list) else [])
        if isinstance(i, dict) and i.get("role") == "user"
    ]
    return _texts(users[-1].get("content")) if users else ""


def _openai_message(n: int, text: str) -> dict[str, Any]:
    return {
        "id": f"msg_mock_{n:04d}",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _openai_events(
    n: int, model: str, items: list[dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    seq = itertools.count()
    response = {
        "id": f"resp_mock_{n:04d}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    events: list[tuple[str, dict[str, Any]]] = []

    def emit(name: str, **data: Any) -> None:
        events.append((name, {"type": name, "sequence_number": next(seq), **data}))

    emit("response.created", response=response)
    emit("response.in_progress", response=response)
    for i, item in enumerate(items):
        if item["type"] == "function_call":
            emit(
                "response.output_item.added",
                output_index=i,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            emit(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=i,
                delta=item["arguments"],
            )
            emit(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=i,
                arguments=item["arguments"],
            )
        else:
            text = item["content"][0]["text"]
            ids = {"item_id": item["id"], "output_index": i, "content_index": 0}
            emit(
                "response.output_item.added",
                output_index=i,
                item={**item, "status": "in_progress", "content": []},
            )
            emit(
                "response.content_part.added",
                **ids,
                part={"type": "output_text", "text": "", "annotations": []},
            )
            emit("response.output_text.delta", **ids, delta=text)
            emit("response.output_text.done", **ids, text=text)
            emit("response.content_part.done", **ids, part=item["content"][0])
        emit("response.output_item.done", output_index=i, item=item)
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    emit(
        "response.completed",
        response={**response, "status": "completed", "output": items, "usage": usage},
    )
    return events


# -- the refusing proxy ----------------------------------------------------------------------------


class _ProxyHandler(socketserver.StreamRequestHandler):
    server: _ProxyServer

    def handle(self) -> None:
        line = self.rfile.readline(8192).decode("latin-1").strip()
        while True:  # the headers: read and drop
            header = self.rfile.readline(8192)
            if header in (b"\r\n", b"\n", b""):
                break
        method, _, rest = line.partition(" ")
        target = rest.rsplit(" ", 1)[0] if rest else ""
        with self.server.lock:
            self.server.refused.append(Refused(method, _host_of(method, target)))
        self.wfile.write(
            b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )


@dataclass(frozen=True)
class Refused:
    method: str
    target: str  # host:port


def _host_of(method: str, target: str) -> str:
    if method == "CONNECT":
        return target
    host = target.split("://", 1)[-1].split("/", 1)[0]
    return host if ":" in host else f"{host}:80"


class _ProxyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__((LOOPBACK, 0), _ProxyHandler)
        self.lock = threading.Lock()
        self.refused: list[Refused] = []


# -- running them ----------------------------------------------------------------------------------


class _Running:
    """A server started in a daemon thread on 127.0.0.1; ``close`` stops it."""

    def __init__(self, server: socketserver.TCPServer) -> None:
        self._base = server
        assert server.server_address[0] == LOOPBACK
        self.port = int(server.server_address[1])
        threading.Thread(target=server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def close(self) -> None:
        self._base.shutdown()
        self._base.server_close()


class MockAPI(_Running):
    """One mock model API on 127.0.0.1 (``kind`` is ``anthropic`` or ``openai``)."""

    def __init__(self, kind: str) -> None:
        handler = {"anthropic": _AnthropicHandler, "openai": _OpenAIHandler}[kind]
        self.kind = kind
        self._server = _Server((LOOPBACK, 0), handler)
        self._server.state = _State()
        super().__init__(self._server)

    def script(self, turn: Turn) -> None:
        self._server.state.turn = turn
        self._server.state.spawned = False

    @property
    def requests(self) -> list[Logged]:
        with self._server.state.lock:
            return list(self._server.state.requests)

    @property
    def resets(self) -> list[int]:
        """The reset times of the usage limits answered so far (``Turn.limit``)."""
        with self._server.state.lock:
            return list(self._server.state.resets)


class DenyProxy(_Running):
    """An HTTP(S) proxy on 127.0.0.1 that answers 403 to everything and records the target."""

    def __init__(self) -> None:
        self._server = _ProxyServer()
        super().__init__(self._server)

    @property
    def refused(self) -> list[Refused]:
        with self._server.lock:
            return list(self._server.refused)
