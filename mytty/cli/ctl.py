"""``mytty-ctl``: the machine CLI. Exactly one JSON line on stdout and exit 0, or one line
``mytty-ctl: <code>: <explanation>`` on stderr and exit 1.

Agents call this in loops, so it imports only the stdlib (and lazily): never libtmux, typer
or the controller's modules.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sys
from typing import Any, NoReturn

MAX_REQUEST = 64 * 1024
MAX_RESPONSE = 1024 * 1024
DEFAULT_TIMEOUT = 5.0
CONSENT_TIMEOUT = 185.0


class CtlError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _fail(code: str, message: str) -> NoReturn:
    raise CtlError(code, message)


# --------------------------------------------------------------------------------------------
# argument parsing: options may sit anywhere; a value flag takes the next token as is
# --------------------------------------------------------------------------------------------
class Args:
    def __init__(self, tokens: list[str], value_flags: set[str], bool_flags: set[str], usage: str):
        self.positionals: list[str] = []
        self.values: dict[str, str] = {}
        self.flags: set[str] = set()
        self.usage = usage
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            name, eq, inline = tok.partition("=")
            if tok.startswith("--") and eq and name in value_flags:
                self.values[name] = inline
            elif tok in value_flags:
                if i + 1 >= len(tokens):
                    _fail("usage", f"{tok} requires a value (usage: {usage})")
                self.values[tok] = tokens[i + 1]
                i += 1
            elif tok in bool_flags:
                self.flags.add(tok)
            elif tok.startswith("--") and len(tok) > 2:
                _fail("usage", f"unknown option {tok} (usage: {usage})")
            else:
                self.positionals.append(tok)
            i += 1

    def count(self, low: int, high: int | None = None) -> list[str]:
        n = len(self.positionals)
        if n < low or (high is not None and n > high):
            _fail("usage", self.usage)
        return self.positionals

    def get(self, name: str) -> str | None:
        return self.values.get(name)


def _timeout_value(text: str | None, default: float) -> float:
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        _fail("usage", f"--timeout-seconds needs a number, got {text!r}")
    if not math.isfinite(value):
        _fail("usage", f"--timeout-seconds needs a finite number, got {text!r}")
    return max(0.0, value)


def _abs_dir(path: str | None) -> str | None:
    return None if path is None else os.path.abspath(os.path.expanduser(path))


def _own_pane() -> str | None:
    value = os.environ.get("MYTTY_SURFACE_ID", "")
    return value or None


def _check_status(text: str) -> None:
    import unicodedata

    problem = None
    if not text:
        problem = "a status must not be empty (use --clear to remove it)"
    elif len(text) > 100:
        problem = "a status is at most 100 characters"
    elif any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in text):
        problem = "a status must be one line without control characters"
    if problem:
        _fail("invalid-status", problem)


def _job(text: str) -> dict[str, str]:
    return {"rawValue": text}


def build_request(argv: list[str]) -> tuple[dict[str, Any], float]:
    """Turn the command line into (request, receive timeout)."""
    cmd, rest = argv[0], argv[1:]
    if cmd == "list":
        return {"type": "list"}, DEFAULT_TIMEOUT
    if cmd == "new-tab":
        a = Args(
            rest, {"--cwd", "--command"}, set(), "mytty-ctl new-tab [--cwd DIR] [--command TEXT]"
        )
        a.count(0, 0)
        req: dict[str, Any] = {"type": "newTab"}
        _pane_creation_options(a, req)
        return req, DEFAULT_TIMEOUT
    if cmd == "split":
        a = Args(
            rest,
            {"--cwd", "--command"},
            set(),
            "mytty-ctl split PANE [left|right|up|down|auto] [--cwd DIR] [--command TEXT]",
        )
        pos = a.count(1, 2)
        direction = pos[1] if len(pos) > 1 else "auto"
        if direction not in ("left", "right", "up", "down", "auto"):
            _fail("usage", f"direction must be left, right, up, down or auto, got {direction!r}")
        req = {"type": "split", "paneID": pos[0], "direction": direction}
        _pane_creation_options(a, req)
        return req, DEFAULT_TIMEOUT
    if cmd == "send":
        a = Args(rest, set(), {"--enter"}, "mytty-ctl send PANE TEXT [--enter]")
        pos = a.count(2, 2)
        return {
            "type": "send",
            "paneID": pos[0],
            "text": pos[1],
            "pressEnter": "--enter" in a.flags,
        }, DEFAULT_TIMEOUT
    if cmd == "send-key":
        a = Args(rest, {"--modifiers"}, set(), "mytty-ctl send-key PANE KEY [--modifiers a,b]")
        pos = a.count(2, 2)
        mods = [m for m in (a.get("--modifiers") or "").split(",") if m]
        return {
            "type": "sendKey",
            "paneID": pos[0],
            "key": pos[1],
            "modifiers": mods,
        }, DEFAULT_TIMEOUT
    if cmd in ("read", "focus", "close-pane"):
        a = Args(rest, set(), set(), f"mytty-ctl {cmd} PANE")
        pos = a.count(1, 1)
        kind = {"read": "read", "focus": "focus", "close-pane": "closePane"}[cmd]
        return {"type": kind, "paneID": pos[0]}, DEFAULT_TIMEOUT
    if cmd == "status":
        a = Args(
            rest, {"--pane"}, {"--clear"}, "mytty-ctl status TEXT [--pane PANE] | status --clear"
        )
        pane = a.get("--pane") or _own_pane()
        if not pane:
            _fail("usage", "status needs --pane or MYTTY_SURFACE_ID")
        if "--clear" in a.flags:
            a.count(0, 0)
            return {"type": "setPaneStatus", "paneID": pane}, DEFAULT_TIMEOUT
        text = a.count(1, 1)[0]
        _check_status(text)
        return {"type": "setPaneStatus", "paneID": pane, "status": text}, DEFAULT_TIMEOUT
    if cmd == "wait":
        a = Args(
            rest,
            {"--until", "--timeout-seconds"},
            set(),
            "mytty-ctl wait PANE --until idle|attention [--timeout-seconds N]",
        )
        pos = a.count(1, 1)
        until = a.get("--until")
        if until not in ("idle", "attention"):
            _fail("usage", "wait needs --until idle or --until attention")
        t = _timeout_value(a.get("--timeout-seconds"), 120.0)
        return (
            {"type": "wait", "paneID": pos[0], "until": until, "timeoutSeconds": t},
            math.ceil(t) + 5,
        )
    if cmd == "events":
        a = Args(
            rest, {"--after", "--timeout"}, set(), "mytty-ctl events [--after SEQ] [--timeout N]"
        )
        a.count(0, 0)
        req = {"type": "events"}
        after = a.get("--after")
        if after is not None:
            if not after.isdigit():
                _fail("usage", f"--after needs a non-negative integer, got {after!r}")
            req["afterSequence"] = int(after)
        raw = a.get("--timeout")
        t = 30.0
        if raw is not None:
            try:
                t = float(raw)
            except ValueError:
                _fail("usage", f"--timeout needs a number, got {raw!r}")
            if not math.isfinite(t) or t < 0:
                _fail("usage", f"--timeout needs a number >= 0, got {raw!r}")
        t = min(t, 600.0)
        req["timeoutSeconds"] = t
        return req, (math.ceil(t) + 5 if after is not None else DEFAULT_TIMEOUT)
    if cmd == "env":
        a = Args(rest, set(), {"--json", "--fish"}, "mytty-ctl env [--json|--fish]")
        a.count(0, 0)
        return {"type": "env"}, DEFAULT_TIMEOUT
    if cmd == "agent":
        return _agent_request(rest)
    if cmd == "integration":
        return _integration_request(rest)
    _fail("usage", f"unknown command {cmd!r}; run mytty-ctl --help")


def _pane_creation_options(a: Args, req: dict[str, Any]) -> None:
    if a.get("--cwd") is not None:
        req["workingDirectory"] = _abs_dir(a.get("--cwd"))
    command = a.get("--command")
    if command is not None:
        if command == "":
            _fail("invalid-command", "--command must not be empty")
        req["command"] = command


def _agent_request(rest: list[str]) -> tuple[dict[str, Any], float]:
    if not rest:
        _fail("usage", "mytty-ctl agent spawn|wait|result|send|focus|close ...")
    sub, rest = rest[0], rest[1:]
    if sub == "spawn":
        return _spawn_request(rest), 60.0
    if sub == "wait":
        a = Args(
            rest,
            {"--until", "--timeout-seconds"},
            set(),
            "mytty-ctl agent wait JOB --until running|attention|completed [--timeout-seconds N]",
        )
        pos = a.count(1, 1)
        until = a.get("--until")
        if until not in ("running", "attention", "completed"):
            _fail("usage", "agent wait needs --until running, attention or completed")
        t = _timeout_value(a.get("--timeout-seconds"), 120.0)
        return (
            {"type": "waitAgent", "jobID": _job(pos[0]), "until": until, "timeoutSeconds": t},
            math.ceil(t) + 5,
        )
    if sub == "send":
        a = Args(rest, set(), {"--enter"}, "mytty-ctl agent send JOB TEXT [--enter]")
        pos = a.count(2, 2)
        return (
            {
                "type": "sendAgent",
                "jobID": _job(pos[0]),
                "text": pos[1],
                "pressEnter": "--enter" in a.flags,
            },
            DEFAULT_TIMEOUT,
        )
    if sub in ("result", "focus", "close"):
        a = Args(rest, set(), set(), f"mytty-ctl agent {sub} JOB")
        pos = a.count(1, 1)
        kind = {"result": "agentResult", "focus": "focusAgent", "close": "closeAgent"}[sub]
        return {"type": kind, "jobID": _job(pos[0])}, DEFAULT_TIMEOUT
    _fail("usage", f"unknown agent command {sub!r}; use spawn, wait, result, send, focus or close")


def _spawn_request(rest: list[str]) -> dict[str, Any]:
    usage = (
        "mytty-ctl agent spawn --provider claude|codex|cursor (--task TEXT | --task-file FILE) "
        "[--anchor PANE] [--direction D] [--cwd DIR] [--access A] [--model M] [--label L] "
        "[--worktree BRANCH]"
    )
    a = Args(
        rest,
        {
            "--provider",
            "--task",
            "--task-file",
            "--anchor",
            "--direction",
            "--cwd",
            "--access",
            "--model",
            "--label",
            "--worktree",
        },
        set(),
        usage,
    )
    a.count(0, 0)
    provider = a.get("--provider")
    if provider not in ("claude", "codex", "cursor"):
        _fail("usage", f"--provider must be claude, codex or cursor (usage: {usage})")
    direction = a.get("--direction") or "auto"
    if direction not in ("left", "right", "up", "down", "auto"):
        _fail("usage", f"--direction must be left, right, up, down or auto, got {direction!r}")
    access = a.get("--access")
    if access is not None and access not in ("inherit", "review", "workspace-write"):
        _fail("usage", f"--access must be inherit, review or workspace-write, got {access!r}")
    task, task_file = a.get("--task"), a.get("--task-file")
    if (task is None) == (task_file is None):
        _fail("usage", f"give exactly one of --task and --task-file (usage: {usage})")
    if task_file is not None:
        try:
            with open(task_file, encoding="utf-8") as f:
                task = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            _fail("invalid-task", f"couldn't read --task-file {task_file}: {exc}")
    assert task is not None
    if not task:
        _fail("invalid-task", "the task is empty")
    branch = a.get("--worktree")
    if branch is not None:
        from mytty.core.validation import validate_worktree_branch

        problem = validate_worktree_branch(branch)
        if problem:
            _fail("invalid-worktree-branch", problem)
    anchor = a.get("--anchor") or _own_pane()
    req: dict[str, Any] = {
        "type": "spawnAgent",
        "provider": provider,
        "direction": direction,
        "task": task,
    }
    if anchor:
        req["anchorPaneID"] = anchor
    for flag, key in (
        ("--access", "access"),
        ("--model", "model"),
        ("--label", "label"),
        ("--worktree", "worktreeBranch"),
    ):
        if a.get(flag) is not None:
            req[key] = a.get(flag)
    if a.get("--cwd") is not None:
        req["cwd"] = _abs_dir(a.get("--cwd"))
    req["callerWorkingDirectory"] = os.getcwd() if os.path.isdir(".") else None
    from mytty.core.launch import task_with_contract

    # The controller appends the worker contract; the whole request must still fit.
    with_contract = dict(req, task=task_with_contract(task))
    if len(_encode(with_contract)) > MAX_REQUEST:
        _fail(
            "invalid-task",
            "the task is too large: task plus worker contract must fit in 64 KiB "
            "(split it, or point the worker at a file)",
        )
    return req


def _integration_request(rest: list[str]) -> tuple[dict[str, Any], float]:
    names = ("codex", "claude-code", "opencode", "antigravity", "cursor")
    if not rest:
        _fail("usage", "mytty-ctl integration list | enable PROVIDER | repair [PROVIDER]")
    sub, rest = rest[0], rest[1:]
    if sub == "list":
        Args(rest, set(), set(), "mytty-ctl integration list").count(0, 0)
        return {"type": "integrationList"}, DEFAULT_TIMEOUT
    if sub in ("enable", "repair"):
        a = Args(rest, set(), set(), f"mytty-ctl integration {sub} PROVIDER")
        pos = a.count(1, 1) if sub == "enable" else a.count(0, 1)
        req: dict[str, Any] = {
            "type": "integrationEnable" if sub == "enable" else "integrationRepair"
        }
        if pos:
            if pos[0] not in names:
                _fail("invalid-provider", f"unknown provider {pos[0]!r}; use {', '.join(names)}")
            req["provider"] = pos[0]
        return req, CONSENT_TIMEOUT
    _fail("usage", f"unknown integration command {sub!r}; use list, enable or repair")


# --------------------------------------------------------------------------------------------
# transport
# --------------------------------------------------------------------------------------------
def _encode(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def socket_path() -> str:
    from mytty.core.paths import control_socket

    return control_socket(os.environ)


def exchange(path: str, body: bytes, timeout: float) -> dict[str, Any]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(5.0)
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            _fail(
                "not-running",
                f"no mytty controller is listening on {path}; start one with "
                "`mytty start` (or `mytty up` to also attach)",
            )
        except PermissionError:
            _fail(
                "permission-denied",
                f"not allowed to connect to {path} (a sandbox, or another "
                "user's socket); run mytty-ctl outside the sandbox",
            )
        except OSError as exc:
            _fail("not-running", f"cannot connect to {path}: {exc.strerror or exc}")
        sock.sendall(body + b"\n")
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(timeout)
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                chunk = sock.recv(262144)
            except TimeoutError:
                _fail("timeout", f"the controller did not answer within {timeout:.0f} s")
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_RESPONSE:
                _fail("invalid-response", "the controller's reply is too large")
            if b"\n" in chunk:
                break
    except (BrokenPipeError, ConnectionResetError):
        _fail("not-running", "the controller closed the connection")
    finally:
        sock.close()
    data = b"".join(chunks).split(b"\n", 1)[0]
    if not data:
        _fail("invalid-response", "the controller closed the connection without a reply")
    try:
        reply = json.loads(data)
    except ValueError:
        _fail("invalid-response", "the controller's reply is not JSON")
    if not isinstance(reply, dict):
        _fail("invalid-response", "the controller's reply is not an object")
    return reply


def _print_env(reply: dict[str, Any], style: str) -> None:
    from mytty.core.quoting import shell_quote

    env = reply.get("environment") or {}
    lines = []
    for key, value in env.items():
        if style == "fish":
            if key == "PATH":
                d = os.path.dirname(env.get("MYTTY_CTL_BIN", ""))
                lines.append(
                    f"contains -- {shell_quote(d)} $PATH; or set -gx PATH $PATH {shell_quote(d)}"
                )
            else:
                lines.append(f"set -gx {key} {shell_quote(value)}")
        elif key == "PATH":
            d = os.path.dirname(env.get("MYTTY_CTL_BIN", ""))
            lines.append(
                f'case ":$PATH:" in *:{shell_quote(d)}:*) ;; *) export PATH="$PATH":{shell_quote(d)} ;; esac'
            )
        else:
            lines.append(f"export {key}={shell_quote(value)}")
    sys.stdout.write("\n".join(lines) + "\n")


def run(argv: list[str]) -> int:
    if not argv or argv[0] in ("--help", "-h"):
        from mytty.core.guide import usage_text

        sys.stdout.write(usage_text())
        return 0
    if argv[0] == "guide":
        from mytty.core.guide import guide_text

        sys.stdout.write(guide_text())
        return 0
    try:
        request, timeout = build_request(argv)
        body = _encode(request)
        if len(body) > MAX_REQUEST:
            _fail(
                "request-too-large",
                f"the request is {len(body)} bytes; the limit is 64 KiB "
                "(split the text or pipe it through a file)",
            )
        reply = exchange(socket_path(), body, timeout)
        if reply.get("type") == "failure":
            _fail(
                str(reply.get("code") or "internal-error"),
                str(reply.get("message") or "the controller refused the request"),
            )
    except CtlError as exc:
        sys.stderr.write(f"mytty-ctl: {exc.code}: {exc.message}\n")
        return 1
    if argv[0] == "env" and "--json" not in argv:
        _print_env(reply, "fish" if "--fish" in argv else "sh")
        return 0
    sys.stdout.write(
        json.dumps(reply, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
    )
    return 0


def main() -> None:
    try:
        code = run(sys.argv[1:])
    except KeyboardInterrupt:
        code = 130
    sys.stdout.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
