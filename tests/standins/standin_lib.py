"""Shared machinery of the stand-in agent CLIs here: ``claude``, ``codex``, ``cursor-agent``.

The stand-ins imitate the real CLIs exactly where mytty meets them — the hook boundary — and
nowhere else: no model, no tools, no TUI. They read the hook configuration that
``mytty integrations enable`` wrote, run those handlers the way the real CLI does (exec form or
``sh -c``, payload JSON on stdin, ``timeout`` honoured), with payloads whose field sets are copied
from the captured Claude Code 2.1.332 / codex-cli 0.171 / Cursor samples. A missing file or
handler simply means no hook runs, as with the real CLIs.

The contract the e2e tests rely on (keep it stable):

* First thing: ``$MYTTY_STANDIN_DIR/<name>.<pid>.json`` = ``{"argv", "cwd", "env"}`` (``env``: the
  ``MYTTY_*`` variables), written atomically; then the banner ``STANDIN <name> pid=<pid>``.
* The prompt is the argv element after ``--``; ``@standin: <directive>`` lines in a prompt steer
  the turn: ``approve``, ``ask``, ``fail``, ``sleep <s>``, ``exit``, ``crash`` (after ``sleep``,
  exit 1 at once with nothing of the turn reported), ``background [<s>]`` and
  ``linger <s>`` (sleep after the tools, before the turn ends), ``boot <s>`` (wait before
  anything of the turn is written, as the real CLIs take a second or two to start); ``tokens <in> <out> [<cache
  read> <cache write>]`` (the usage each model message of the turn reports in the transcript,
  default 10 5 0 0) and ``hold`` (after the first model message, wait for Esc on the terminal,
  then end the turn the way Esc does: the interrupt row in the transcript, no hook);
  ``thinking`` (Claude: the model is still thinking, no output, until Esc puts the prompt back
  into the input box: no hook, no interrupt row), ``notify <s>`` (Claude: how long a
  permission dialog stays unanswered before the ``permission_prompt`` Notification, default
  6 s as on the real CLI), ``apierror [<status>]`` (Codex: the model API answers an HTTP error:
  no hook, the rollout's ``task_complete`` carries the ``error``; the session goes on),
  ``limit <seconds>|none [<window>] [plan <plan>] [repeat <n>]`` (the model API answers the
  account's usage limit, resetting that many seconds from now (``none``: no reset headers), for
  the window ``five_hour`` (default), ``seven_day``, …; ``repeat``: the next n turns meet it too,
  each with a fresh reset, as an account still limited does: each stand-in does what its CLI
  does then, docs/dev/research/limits.md);
  ``hold-memory <MB>`` (before the turn reports anything, allocate and touch that many MB and
  keep them until the agent exits: a worker's memory for admission tests). Several
  directives may share a line, separated by ``;``. ``run <shell command>`` (the rest of its
  line, ``;`` included; Claude only) makes the turn's tool call a Bash call of that command: a
  ``PreToolUse`` deny (the provider's JSON ``permissionDecision: "deny"`` on exit 0, or exit 2)
  is honoured — the command does not run, ``STANDIN tool denied: <reason>`` is printed and no
  PostToolUse fires — otherwise it runs with ``/bin/sh -c`` in the agent's cwd (``STANDIN tool
  ran: <exit code>``).
* Each turn prints ``STANDIN turn <n> started`` … ``STANDIN turn <n> done``; an approval or a
  question prints ``STANDIN waiting for approval`` / ``STANDIN waiting for input`` and reads one
  line from stdin. Between turns: ``STANDIN ready``, then one prompt per stdin line; EOF or
  ``/exit`` ends the session.
* Every hook run is appended to ``$MYTTY_STANDIN_DIR/<name>.<pid>.hooks.jsonl`` as one JSON
  object: ``event``, ``command``, ``args``, ``exitCode`` (None on timeout), ``stdout``,
  ``stderr``, ``timedOut``, ``durationMs``, ``payload``, and ``violation`` when the handler's
  reply broke the provider's rules (Cursor ``preToolUse`` must answer with a JSON object).

Stdlib only; every stand-in imports this file by the path of its own (symlink-resolved) script.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_DIRECTIVE_LINE = re.compile(r"^\s*@standin:\s*(.*?)\s*$")
_DEFAULT_BACKGROUND_S = 3.0
#: Directives without an argument (each a bool field of :class:`Directives`).
_FLAGS = frozenset({"approve", "ask", "fail", "exit", "hold", "crash", "thinking"})
#: What :meth:`StandinAgent.wait_for_line_or_escape` returns for the Esc key.
ESCAPE = "\x1b"


# ------------------------------------------------------------------------------------------------
# directives
# ------------------------------------------------------------------------------------------------


@dataclass
class Directives:
    """What ``@standin:`` lines asked this turn to do."""

    approve: bool = False
    ask: bool = False
    fail: bool = False
    exit: bool = False
    crash: bool = False  # die mid-turn (after ``sleep``): exit 1, nothing of the turn reported
    background: float | None = None  # seconds the background agent keeps running
    sleep: float = 0.0
    linger: float = 0.0
    boot: float = 0.0  # before anything of the turn is written (a real CLI starting up)
    #: Usage each model message reports: input, output, cache read, cache write.
    tokens: tuple[int, int, int, int] = (10, 5, 0, 0)
    hold: bool = False
    thinking: bool = False
    notify: float | None = None  # seconds before Claude's permission_prompt Notification
    apierror: int | None = None  # HTTP status of a model API error (Codex)
    limit: UsageLimit | None = None  # the model API answers the account's usage limit
    run: str | None = None  # a Bash tool call of this command line
    hold_memory: int = 0  # MB to allocate and keep for the rest of the session
    unknown: list[str] = field(default_factory=list)


@dataclass
class UsageLimit:
    """``limit <s>|none [<window>] [plan <p>]``: the 429 a model API gives at the usage limit."""

    resets_in: float | None  # seconds from now; None: the response had no reset headers
    window: str = "five_hour"
    plan: str | None = None
    repeat: int = 0  # the next turns that meet the limit too

    def resets_at(self, now: float) -> int | None:
        """The reset as the API sends it: whole Unix seconds (Claude rounds the header)."""
        return None if self.resets_in is None else round(now + self.resets_in)


def _usage_limit(rest: list[str]) -> UsageLimit | None:
    if not rest:
        return None
    first, others = rest[0], rest[1:]
    resets = None if first == "none" else _seconds(first)
    if resets is None and first != "none":
        return None
    found = UsageLimit(resets)
    while others:
        word = others.pop(0)
        if word == "plan" and others:
            found.plan = others.pop(0)
        elif word == "repeat" and others and others[0].isdigit():
            found.repeat = int(others.pop(0))
        else:
            found.window = word
    return found


def _seconds(text: str, default: float | None = None) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return default
    return value if value >= 0 else default


def parse_directives(prompt: str) -> Directives:
    """Collect the ``@standin:`` directives of a prompt (any line, ``;`` separates several)."""
    found = Directives()
    for line in prompt.splitlines():
        match = _DIRECTIVE_LINE.match(line)
        if not match:
            continue
        body = match.group(1)
        if body.split(" ", 1)[0].lower() == "run" and body[3:].strip():
            found.run = body[3:].strip()  # the rest of the line is the command, `;` and all
            continue
        for part in body.split(";"):
            words = part.split()
            if not words:
                continue
            verb, rest = words[0].lower(), words[1:]
            if verb == "tokens" and len(rest) in (2, 4) and all(w.isdigit() for w in rest):
                values = [int(w) for w in rest] + [0, 0]
                found.tokens = (values[0], values[1], values[2], values[3])
            elif verb in _FLAGS and not rest:
                setattr(found, verb, True)
            elif verb == "background" and len(rest) <= 1:
                found.background = (
                    _seconds(rest[0], _DEFAULT_BACKGROUND_S) if rest else _DEFAULT_BACKGROUND_S
                )
            elif verb == "notify" and len(rest) == 1 and _seconds(rest[0]) is not None:
                found.notify = _seconds(rest[0])
            elif verb == "hold-memory" and len(rest) == 1 and rest[0].isdigit():
                found.hold_memory += int(rest[0])
            elif verb == "apierror" and (not rest or (len(rest) == 1 and rest[0].isdigit())):
                found.apierror = int(rest[0]) if rest else 400
            elif verb == "limit" and (limit := _usage_limit(rest)) is not None:
                found.limit = limit
            elif (
                verb in ("sleep", "linger", "boot")
                and len(rest) == 1
                and _seconds(rest[0]) is not None
            ):
                setattr(found, verb, getattr(found, verb) + (_seconds(rest[0]) or 0.0))
            else:
                found.unknown.append(part.strip())
    return found


def prompt_from_argv(argv: list[str]) -> str | None:
    """The element after the first ``--`` (None when there is none)."""
    try:
        index = argv.index("--")
    except ValueError:
        return None
    return argv[index + 1] if index + 1 < len(argv) else None


def option_value(argv: list[str], *names: str) -> str | None:
    """The value of ``--name VALUE`` / ``--name=VALUE`` before ``--`` (last one wins)."""
    value = None
    end = argv.index("--") if "--" in argv else len(argv)
    i = 0
    while i < end:
        token = argv[i]
        for name in names:
            if token == name and i + 1 < end:
                value = argv[i + 1]
                i += 1
                break
            if token.startswith(name + "="):
                value = token[len(name) + 1 :]
                break
        i += 1
    return value


# ------------------------------------------------------------------------------------------------
# small helpers
# ------------------------------------------------------------------------------------------------


def say(text: str) -> None:
    """One line on the agent's screen."""
    print(text, flush=True)


def atomic_write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def uuid7() -> str:
    """A time-ordered UUID (version 7), the kind Codex uses for sessions and turns."""
    millis = int(time.time() * 1000)
    rand = int.from_bytes(secrets.token_bytes(10), "big")
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_line() -> str | None:
    """One line from stdin without its newline; None at end of input."""
    line = sys.stdin.readline()
    if line == "":
        return None
    return line.rstrip("\r\n")


def _interruptible_sleep(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.2))


# ------------------------------------------------------------------------------------------------
# hook configuration
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Handler:
    """One command hook handler, as a provider's config file declares it."""

    event: str
    command: str
    args: tuple[str, ...] | None  # exec form (Claude Code): no shell
    timeout: float | None
    matcher: str | None


def _load_json_object(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _handler(event: str, raw: Any, matcher: str | None) -> Handler | None:
    if not isinstance(raw, dict) or raw.get("type", "command") != "command":
        return None
    command = raw.get("command")
    if not isinstance(command, str) or not command:
        return None
    args = raw.get("args")
    exec_args = tuple(str(a) for a in args) if isinstance(args, list) else None
    timeout = raw.get("timeout")
    seconds = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
    return Handler(event, command, exec_args, seconds, matcher)


def load_grouped_hooks(path: Path) -> dict[str, list[Handler]]:
    """Claude Code / Codex shape: ``{"hooks": {Event: [{"matcher"?, "hooks": [handler…]}]}}``."""
    data = _load_json_object(path)
    hooks = data.get("hooks") if data else None
    out: dict[str, list[Handler]] = {}
    if not isinstance(hooks, dict):
        return out
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for raw in group["hooks"]:
                handler = _handler(event, raw, matcher)
                if handler is not None:
                    out.setdefault(event, []).append(handler)
    return out


def load_flat_hooks(path: Path) -> dict[str, list[Handler]]:
    """Cursor shape: ``{"version": 1, "hooks": {event: [handler…]}}`` (no groups)."""
    data = _load_json_object(path)
    hooks = data.get("hooks") if data else None
    out: dict[str, list[Handler]] = {}
    if not isinstance(hooks, dict):
        return out
    for event, handlers in hooks.items():
        if not isinstance(handlers, list):
            continue
        for raw in handlers:
            matcher = raw.get("matcher") if isinstance(raw, dict) else None
            handler = _handler(event, raw, matcher if isinstance(matcher, str) else None)
            if handler is not None:
                out.setdefault(event, []).append(handler)
    return out


def matcher_applies(matcher: str | None, subject: str | None) -> bool:
    """Claude/Codex matchers: absent, empty or ``*`` match everything; else a full regex match."""
    if matcher is None or matcher in ("", "*") or subject is None:
        return True
    try:
        return re.fullmatch(matcher, subject) is not None
    except re.error:
        return matcher == subject


# ------------------------------------------------------------------------------------------------
# running hooks
# ------------------------------------------------------------------------------------------------


@dataclass
class HookResult:
    handler: Handler
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration_ms: int
    violation: str | None = None
    #: When it started (Unix seconds), whether the agent killed it (Esc), the stdin bytes.
    started_at: float = 0.0
    killed: bool = False
    stdin: str = ""


def pre_tool_use_denial(results: list[HookResult]) -> str | None:
    """The reason a PreToolUse hook denied the tool call (Claude Code / Codex rules), or None.

    A deny is ``{"hookSpecificOutput": {"permissionDecision": "deny", …}}`` on stdout with exit
    0, or exit 2 (the reason on stderr).
    """
    for result in results:
        if result.exit_code == 2:
            return result.stderr.strip() or "denied by a hook (exit 2)"
        if result.exit_code != 0 or not result.stdout.strip():
            continue
        try:
            reply = json.loads(result.stdout)
        except ValueError:
            continue
        specific = reply.get("hookSpecificOutput") if isinstance(reply, dict) else None
        if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
            return str(specific.get("permissionDecisionReason") or "denied by a hook")
    return None


def encode_stdin(payload: dict[str, Any], framing: str) -> bytes:
    """The payload's bytes on a hook's stdin, as each CLI writes them (research §4): Claude
    Code compact JSON and one newline (``claude``), Codex compact JSON and EOF (``codex``),
    anything else json's default separators (Cursor, not captured byte for byte)."""
    if framing == "claude":
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    if framing == "codex":
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


class HookRunner:
    """Runs handlers like the provider does and logs every run to ``<name>.<pid>.hooks.jsonl``."""

    def __init__(self, log_path: Path | None, default_timeout: float, framing: str = "") -> None:
        self._log_path = log_path
        self._default_timeout = default_timeout
        self._lock = threading.Lock()
        self.framing = framing

    def run(
        self,
        handlers: list[Handler],
        payload: dict[str, Any],
        *,
        env: dict[str, str],
        cwd: str,
        timeout_cap: float | None = None,
        check: Any = None,
    ) -> list[HookResult]:
        """Run every handler concurrently (as Claude Code and Codex do) and wait for all."""
        body = encode_stdin(payload, self.framing)
        results: list[HookResult | None] = [None] * len(handlers)

        def one(index: int, handler: Handler) -> None:
            timeout = handler.timeout or self._default_timeout
            if timeout_cap is not None:
                timeout = min(timeout, timeout_cap)
            result = _run_handler(handler, body, env=env, cwd=cwd, timeout=timeout)
            if check is not None:
                result.violation = check(result)
            results[index] = result
            self._log(result, payload)

        threads = [
            threading.Thread(target=one, args=(i, h), daemon=True) for i, h in enumerate(handlers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return [r for r in results if r is not None]

    def record(self, result: HookResult, payload: dict[str, Any]) -> None:
        """Log a hook run that happened elsewhere (Codex's background server ran it)."""
        self._log(result, payload)

    def _log(self, result: HookResult, payload: dict[str, Any]) -> None:
        if self._log_path is None:
            return
        entry: dict[str, Any] = {
            "time": now_iso(),
            "event": result.handler.event,
            "command": result.handler.command,
            "args": list(result.handler.args) if result.handler.args is not None else None,
            "exitCode": result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
            "timedOut": result.timed_out,
            "durationMs": result.duration_ms,
            "startedAt": result.started_at,
            "killed": result.killed,
            "stdin": result.stdin,
            "payload": payload,
        }
        if result.violation:
            entry["violation"] = result.violation
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self._lock, open(self._log_path, "a", encoding="utf-8") as f:
            f.write(line)


def _argv(handler: Handler, env: dict[str, str]) -> list[str]:
    if handler.args is not None:
        # Exec form: the command is an executable, resolved on PATH when it is not a path.
        program = handler.command
        if "/" not in program:
            program = shutil.which(program, path=env.get("PATH")) or program
        return [program, *handler.args]
    return ["/bin/sh", "-c", handler.command]


def _run_handler(
    handler: Handler,
    body: bytes,
    *,
    env: dict[str, str],
    cwd: str,
    timeout: float,
    started_proc: Any = None,
) -> HookResult:
    """Run one handler to its end (or its timeout). ``started_proc(process)`` is told the
    process as soon as it runs (so the agent can kill it: Esc at Claude's dialog)."""
    started = time.monotonic()
    started_at = time.time()
    try:
        process = subprocess.Popen(
            _argv(handler, env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd if os.path.isdir(cwd) else None,
            env=env,
            # A group of its own (same session): a timeout or Esc kills the shell's children
            # too, which would otherwise hold the pipes open past the kill.
            process_group=0,
        )
    except OSError as exc:
        return HookResult(handler, 127, "", f"could not start the hook: {exc}", False, 0)
    if started_proc is not None:
        started_proc(process)
    timed_out = False
    try:
        out, err = process.communicate(body, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(process)
        out, err = process.communicate()
    elapsed = int((time.monotonic() - started) * 1000)
    return HookResult(
        handler,
        None if timed_out else process.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        timed_out,
        elapsed,
        started_at=started_at,
        killed=getattr(process, "killed_by_agent", False),
        stdin=body.decode("utf-8", "replace"),
    )


def kill_group(process: Any) -> None:
    """Kill a hook and whatever it started (its process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


class BackgroundHooks:
    """Handlers started together and left running while the agent goes on (Claude Code's
    PermissionRequest: the dialog is up meanwhile). Each result is logged when it comes; the
    agent is woken (``wake_fd`` becomes readable) at each. ``kill()`` is Esc's."""

    def __init__(
        self,
        runner: HookRunner,
        handlers: list[Handler],
        payload: dict[str, Any],
        *,
        env: dict[str, str],
        cwd: str,
    ) -> None:
        self.results: list[HookResult] = []  # in the order they finished
        self._lock = threading.Lock()
        self._processes: list[Any] = []
        self._left = len(handlers)
        self.wake_read, self._wake_write = os.pipe()
        body = encode_stdin(payload, runner.framing)

        def one(handler: Handler) -> None:
            timeout = handler.timeout or runner._default_timeout
            result = _run_handler(
                handler, body, env=env, cwd=cwd, timeout=timeout, started_proc=self._started
            )
            runner._log(result, payload)
            with self._lock:
                self.results.append(result)
                self._left -= 1
            try:
                os.write(self._wake_write, b"x")
            except OSError:
                pass

        for handler in handlers:
            threading.Thread(target=one, args=(handler,), daemon=True).start()

    def _started(self, process: Any) -> None:
        with self._lock:
            self._processes.append(process)

    @property
    def done(self) -> bool:
        with self._lock:
            return self._left == 0

    def finished(self) -> list[HookResult]:
        with self._lock:
            return list(self.results)

    def kill(self) -> None:
        with self._lock:
            for process in self._processes:
                if process.poll() is None:
                    process.killed_by_agent = True
                    kill_group(process)


# ------------------------------------------------------------------------------------------------
# the permission dialogs' keys (a terminal read key by key)
# ------------------------------------------------------------------------------------------------

#: Keys as :func:`read_key` names them.
KEY_ENTER, KEY_ESC, KEY_UP, KEY_DOWN, KEY_TAB, KEY_BACKSPACE = (
    "enter",
    "esc",
    "up",
    "down",
    "tab",
    "backspace",
)
_SEQUENCES = {b"\x1b[A": KEY_UP, b"\x1bOA": KEY_UP, b"\x1b[B": KEY_DOWN, b"\x1bOB": KEY_DOWN}


def read_key(fd: int, wake_fd: int | None = None) -> str | None:
    """The next key on the terminal ``fd`` (in cbreak mode): a name above or the character;
    "" when ``wake_fd`` became readable first (and drained); None at end of input."""
    import select

    watched = [fd] + ([wake_fd] if wake_fd is not None else [])
    ready, _, _ = select.select(watched, [], [])
    if wake_fd is not None and wake_fd in ready and fd not in ready:
        os.read(wake_fd, 64)
        return ""
    first = os.read(fd, 1)
    if not first:
        return None
    if first == b"\x1b":
        more, _, _ = select.select([fd], [], [], 0.05)
        if not more:
            return KEY_ESC
        rest = os.read(fd, 2)
        return _SEQUENCES.get(first + rest, KEY_ESC)
    if first in (b"\r", b"\n"):
        return KEY_ENTER
    if first == b"\t":
        return KEY_TAB
    if first in (b"\x7f", b"\x08"):
        return KEY_BACKSPACE
    if first[0] >= 0x80:  # a UTF-8 sequence: read the rest of the character
        size = 2 if first[0] < 0xE0 else 3 if first[0] < 0xF0 else 4
        first += os.read(fd, size - 1)
    return first.decode("utf-8", "replace")


class Overlay:
    """Lines an agent draws at the bottom of its screen and later erases or redraws (its
    permission dialog), as the real TUIs do: once answered it is gone from the screen. On a
    pipe (no terminal) the lines are only printed."""

    def __init__(self) -> None:
        self.height = 0
        self.tty = sys.stdout.isatty()

    def draw(self, lines: list[str]) -> None:
        self.erase()
        text = "\n".join(lines) + "\n"
        sys.stdout.write(text)
        sys.stdout.flush()
        try:
            width = max(1, os.get_terminal_size(sys.stdout.fileno()).columns)
        except OSError:
            width = 80
        # Rows, not lines: a line longer than the terminal wraps onto more of them.
        self.height = sum(max(1, -(-len(line) // width)) for line in "\n".join(lines).split("\n"))

    def erase(self) -> None:
        if self.height and self.tty:
            sys.stdout.write(f"\x1b[{self.height}A\r\x1b[J")
            sys.stdout.flush()
        self.height = 0


def printable(text: str) -> str:
    """``text`` as the TUIs draw it: control characters shown as ``^X`` (never sent raw)."""
    return "".join(
        ch if ch == "\n" or ch.isprintable() else f"^{chr((ord(ch) + 64) % 128)}" for ch in text
    )


# ------------------------------------------------------------------------------------------------
# the agent skeleton
# ------------------------------------------------------------------------------------------------


class TurnOutcome:
    CONTINUE = "continue"
    EXIT = "exit"  # end the session normally after this turn
    CRASH = "crash"  # exit non-zero at once, without session hooks
    EOF = "eof"  # input ended while the turn waited for the human; the session is over


class StandinAgent:
    """The launch → turn → ready loop every stand-in shares; subclasses fire the hooks."""

    name = "agent"
    default_timeout = 600.0
    #: How the agent writes a hook's stdin (:func:`encode_stdin`).
    framing = ""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.cwd = os.getcwd()
        self.home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
        record_dir = os.environ.get("MYTTY_STANDIN_DIR")
        self.record_dir = Path(record_dir) if record_dir else None
        self.pid = os.getpid()
        log_path = None
        if self.record_dir is not None:
            log_path = self.record_dir / f"{self.name}.{self.pid}.hooks.jsonl"
        self.runner = HookRunner(log_path, self.default_timeout, self.framing)
        self.turns = 0
        #: The usage limit later turns still meet (``limit … repeat n``), and how many.
        self._still_limited: tuple[UsageLimit, int] | None = None
        self.held: list[bytes] = []  # hold-memory

    # -- hooks for subclasses ----------------------------------------------------------------
    def on_launch(self) -> None:
        """Runs before the first prompt (Claude fires SessionStart here)."""

    def run_turn(self, number: int, prompt: str, directives: Directives) -> str:
        raise NotImplementedError

    def on_session_end(self, reason: str) -> None:
        """Runs when the session ends normally (EOF, ``/exit``, the ``exit`` directive)."""

    def on_exit(self) -> None:
        """Runs last, whatever the outcome (close files, remove registries)."""

    def hook_env(self) -> dict[str, str]:
        return dict(os.environ)

    def between_turns(self) -> None:
        """Runs before each wait for the next prompt (a dialog that holds the keyboard)."""

    def armed_turn(self) -> tuple[float, str] | None:
        """(monotonic deadline, prompt) of a turn the agent starts by itself unless a prompt
        comes first (Claude's continuation after a usage limit reset), else None."""
        return None

    def on_prompt_before_armed(self) -> None:
        """A typed prompt came while a turn of the agent's own was armed (it is cancelled)."""

    def on_armed_turn(self) -> None:
        """The armed turn is starting (before its prompt is run)."""

    def _next_line(self) -> tuple[str | None, bool]:
        """The next prompt line, or the armed turn's prompt when its time came first
        (second value True)."""
        armed = self.armed_turn()
        if armed is None:
            return read_line(), False
        deadline, prompt = armed
        import select

        left = deadline - time.monotonic()
        ready = left <= 0 or not select.select([sys.stdin], [], [], left)[0]
        if ready:
            return prompt, True
        self.on_prompt_before_armed()
        return read_line(), False

    # -- the loop -----------------------------------------------------------------------------
    def record_launch(self) -> None:
        if self.record_dir is None:
            return
        record = {
            "argv": self.argv,
            "cwd": self.cwd,
            "env": {k: v for k, v in os.environ.items() if k.startswith("MYTTY_")},
        }
        try:
            atomic_write_json(self.record_dir / f"{self.name}.{self.pid}.json", record)
        except OSError as exc:
            say(f"STANDIN warning: could not write the launch record: {exc}")

    def wait_for_answer(self, what: str) -> str | None:
        say(f"STANDIN waiting for {what}")
        return read_line()

    def main(self) -> int:
        self.record_launch()
        say(f"STANDIN {self.name} pid={self.pid}")
        # A pane that goes away sends SIGHUP; leave quietly like the real CLIs.
        signal.signal(signal.SIGHUP, lambda *_: os._exit(129))
        try:
            sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass
        try:
            return self._loop()
        except KeyboardInterrupt:
            say("STANDIN interrupted")
            return 130
        finally:
            self.on_exit()

    def _loop(self) -> int:
        self.on_launch()
        prompt = prompt_from_argv(self.argv)
        if prompt is not None and prompt.strip():
            outcome = self._turn(prompt)
            if outcome != TurnOutcome.CONTINUE:
                return self._finish(outcome)
        while True:
            self.between_turns()
            say("STANDIN ready")
            line, own = self._next_line()
            while line is not None and not line.strip():
                line, own = self._next_line()  # an empty Enter does nothing in a TUI
            if own:
                self.on_armed_turn()
            if line is None or line.strip() == "/exit":
                self.on_session_end("prompt_input_exit" if line is not None else "other")
                say("STANDIN bye")
                return 0
            outcome = self._turn(line)
            if outcome != TurnOutcome.CONTINUE:
                return self._finish(outcome)

    def _finish(self, outcome: str) -> int:
        if outcome == TurnOutcome.CRASH:
            say("STANDIN exiting with an error")
            return 1
        if outcome == TurnOutcome.EXIT:
            self.on_session_end("other")
        say("STANDIN bye")
        return 0

    def _turn(self, prompt: str) -> str:
        self.turns += 1
        number = self.turns
        directives = parse_directives(prompt)
        for unknown in directives.unknown:
            say(f"STANDIN unknown directive: {unknown}")
        self.pause(directives.boot)
        self._limit_of(directives)
        if directives.hold_memory:
            # Written byte by byte (a multiplication fills every page): resident, not just mapped.
            self.held.append(b"\x01" * (directives.hold_memory * 1024 * 1024))
            say(f"STANDIN holding {sum(len(b) for b in self.held) // (1024 * 1024)} MB")
        say(f"STANDIN turn {number} started")
        if directives.crash:  # a CLI dying mid-turn: no hook, no transcript row, exit 1
            self.pause(directives.sleep)
            say("STANDIN crashing")
            return TurnOutcome.CRASH
        outcome = self.run_turn(number, prompt, directives)
        if outcome == TurnOutcome.EOF:
            self.on_session_end("other")
            return TurnOutcome.EOF
        say(f"STANDIN turn {number} done" + (" (failed)" if directives.fail else ""))
        if outcome == TurnOutcome.CRASH:
            return TurnOutcome.CRASH
        return TurnOutcome.EXIT if directives.exit else TurnOutcome.CONTINUE

    def _limit_of(self, directives: Directives) -> None:
        """A turn meets the limit its prompt asks for, or one an earlier turn left standing."""
        if directives.limit is not None:
            repeat = directives.limit.repeat
            self._still_limited = (directives.limit, repeat) if repeat else None
        elif self._still_limited is not None:
            limit, left = self._still_limited
            directives.limit = limit
            self._still_limited = (limit, left - 1) if left > 1 else None

    def cbreak(self) -> Any:
        """Read the terminal key by key from now on, as a TUI does (in canonical mode an Esc
        would wait for Enter); the saved settings for :meth:`wait_for_escape`, None without a
        terminal. Entered *before* the agent shows it is busy, so no early Esc is lost."""
        import termios
        import tty

        fd = sys.stdin.fileno()
        try:
            saved = termios.tcgetattr(fd)
            tty.setcbreak(fd, termios.TCSANOW)  # TCSAFLUSH would drop a key already typed
        except termios.error:
            return None
        return saved

    def wait_for_escape(self, saved: Any) -> bool:
        """Wait for Esc (after :meth:`cbreak`), then restore the terminal; False at end of input
        or without a terminal."""
        import termios

        say("STANDIN holding (Esc interrupts)")
        if saved is None:
            return False
        fd = sys.stdin.fileno()
        try:
            while True:
                byte = os.read(fd, 1)
                if not byte:
                    return False
                if byte == b"\x1b":
                    return True
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def wait_for_line_or_escape(self, what: str) -> str | None:
        """A dialog's answer: one line, or :data:`ESCAPE` when Esc comes first (the real TUIs
        take Esc as "cancel"); None at end of input. On a terminal the keys are read one by one
        (cbreak), so an Esc counts without an Enter; without one (a pipe), a line that starts
        with the Esc byte stands for the key."""
        say(f"STANDIN waiting for {what}")
        saved = self.cbreak()
        if saved is None:
            line = read_line()
            return ESCAPE if line is not None and line.startswith("\x1b") else line
        import termios

        fd = sys.stdin.fileno()
        typed = b""
        try:
            while True:
                byte = os.read(fd, 1)
                if not byte:
                    return None
                if byte == b"\x1b" and not typed:
                    return ESCAPE
                if byte in (b"\n", b"\r"):
                    return typed.decode("utf-8", "replace")
                typed += byte
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def pause(self, seconds: float) -> None:
        if seconds > 0:
            _interruptible_sleep(seconds)


def run_standin(agent_class: type[StandinAgent]) -> None:
    """Entry point of a stand-in script."""
    agent = agent_class(sys.argv[1:])
    sys.exit(agent.main())


# ------------------------------------------------------------------------------------------------
# Codex trust (``codex app-server`` → ``hooks/list``)
# ------------------------------------------------------------------------------------------------


def snake_case(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def camel_case(event: str) -> str:
    return event[:1].lower() + event[1:]


def codex_hook_hash(event: str, matcher: str | None, raw_handler: Any) -> str:
    """The stand-in's own trust hash of a hook definition (real Codex has its own formula)."""
    body = json.dumps(
        {"event": snake_case(event), "matcher": matcher, "handler": raw_handler},
        sort_keys=True,
        separators=(",", ":"),
    )
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


def codex_hook_state(config_path: Path) -> dict[str, dict[str, Any]]:
    """The ``[hooks.state."<key>"]`` tables of ``config.toml`` (``trusted_hash``, ``enabled``)."""
    import tomllib

    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    hooks = data.get("hooks")
    state = hooks.get("state", {}) if isinstance(hooks, dict) else {}
    if not isinstance(state, dict):
        return {}
    return {key: entry for key, entry in state.items() if isinstance(entry, dict)}


def codex_list_hooks(codex_home: Path) -> list[dict[str, Any]]:
    """The ``hooks/list`` entries for ``$CODEX_HOME/hooks.json``, in the shape Codex 0.171 uses.

    As the real one does, Codex names the file by its canonical path (symlinks resolved) in
    both ``sourcePath`` and the trust ``key``, lists every field even when null, gives a
    handler without ``timeout`` the default 600 s, and reads ``enabled`` from
    ``[hooks.state."<key>"]``.
    """
    path = codex_home / "hooks.json"
    data = _load_json_object(path)
    hooks = data.get("hooks") if data else None
    if not isinstance(hooks, dict):
        return []
    canonical = Path(os.path.realpath(path))
    state = codex_hook_state(codex_home / "config.toml")
    out: list[dict[str, Any]] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for gi, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for hi, raw in enumerate(group["hooks"]):
                if not isinstance(raw, dict):
                    continue
                key = f"{canonical}:{snake_case(event)}:{gi}:{hi}"
                current = codex_hook_hash(event, matcher, raw)
                entry = state.get(key, {})
                recorded = entry.get("trusted_hash")
                status = (
                    "trusted" if recorded == current else "modified" if recorded else "untrusted"
                )
                out.append(
                    {
                        "key": key,
                        "eventName": camel_case(event),
                        "handlerType": raw.get("type", "command"),
                        "command": raw.get("command"),
                        "async": bool(raw.get("async", False)),
                        "matcher": matcher,
                        "timeoutSec": raw.get("timeout", 600),
                        "statusMessage": raw.get("statusMessage"),
                        "additionalContextLimit": None,
                        "sourcePath": str(canonical),
                        "source": "user",
                        "pluginId": None,
                        "displayOrder": len(out),
                        "enabled": entry.get("enabled", True) is not False,
                        "isManaged": False,
                        "currentHash": current,
                        "trustStatus": status,
                    }
                )
    return out


# JSON-RPC error codes codex app-server answers with.
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601


def serve_codex_app_server(codex_home: Path) -> int:
    """A tiny ``codex app-server`` on stdio: ``initialize``, then ``hooks/list``.

    The wire is Codex's: JSON-RPC 2.0 lines without the ``"jsonrpc"`` member, requests before
    ``initialize`` refused with "Not initialized", a second ``initialize`` with "Already
    initialized", and one ``{cwd, hooks, errors, warnings}`` entry per requested ``cwd``.
    """
    out = sys.stdout
    initialized = False

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue  # a notification (``initialized``)
        method = message.get("method")
        rid = message["id"]
        if method == "initialize":
            if initialized:
                send(
                    {
                        "id": rid,
                        "error": {"code": _INVALID_REQUEST, "message": "Already initialized"},
                    }
                )
                continue
            initialized = True
            send(
                {
                    "id": rid,
                    "result": {
                        "userAgent": "codex_cli_rs/0.171.0 (stand-in)",
                        "codexHome": str(codex_home),
                        "platformFamily": "unix",
                        "platformOs": "linux",
                    },
                }
            )
        elif not initialized:
            send({"id": rid, "error": {"code": _INVALID_REQUEST, "message": "Not initialized"}})
        elif method == "hooks/list":
            given = message.get("params")
            params = given if isinstance(given, dict) else {}
            cwds = params.get("cwds") or [os.getcwd()]
            hooks = codex_list_hooks(codex_home)
            send(
                {
                    "id": rid,
                    "result": {
                        "data": [
                            {"cwd": cwd, "hooks": hooks, "errors": [], "warnings": []}
                            for cwd in cwds
                        ]
                    },
                }
            )
        else:
            send(
                {
                    "id": rid,
                    "error": {
                        "code": _METHOD_NOT_FOUND,
                        "message": f"the stand-in has no {method}",
                    },
                }
            )
    return 0
