"""Ask Codex for the trust hash of each hook, so enabling the integration also trusts it.

Codex 0.171 runs a hook only after the user trusts it; trust is recorded per hook as
``[hooks.state."<key>"] trusted_hash = "sha256:…"`` in ``config.toml``, where ``key`` is
``<hooks.json path>:<snake_case event>:<group index>:<handler index>``. The hash formula is
Codex's own, so mytty asks Codex: ``codex app-server`` (JSON-RPC over stdio) answers
``hooks/list`` with each hook's ``key``, ``currentHash`` and ``trustStatus``. The human running
``enable`` is the consent the trust prompt would have asked for.

``CodexHookSource`` is the seam: tests pass a fake, the real one starts the app server with a
hard deadline and always kills it afterwards.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

DEFAULT_TIMEOUT_SECONDS = 5.0


class CodexUnavailable(Exception):
    """Codex could not be asked (not installed, failed, or too slow); the text says which."""


@dataclass(frozen=True, slots=True)
class CodexHook:
    """One hook as Codex lists it."""

    key: str
    event_name: str
    command: str | None
    source_path: str
    current_hash: str
    trust_status: str


class CodexHookSource(Protocol):
    def list_hooks(self, env: Mapping[str, str], cwd: Path) -> list[CodexHook]:
        """Every hook Codex would load for ``cwd``; raises ``CodexUnavailable``."""
        ...


def find_codex(env: Mapping[str, str]) -> str | None:
    """The ``codex`` executable on the environment's ``PATH``."""
    return shutil.which("codex", path=env.get("PATH"))


def _hook_from_wire(entry: Mapping[str, Any]) -> CodexHook | None:
    try:
        return CodexHook(
            key=str(entry["key"]),
            event_name=str(entry["eventName"]),
            command=entry.get("command") if isinstance(entry.get("command"), str) else None,
            source_path=str(entry["sourcePath"]),
            current_hash=str(entry["currentHash"]),
            trust_status=str(entry["trustStatus"]),
        )
    except (KeyError, TypeError):
        return None


class AppServerHookSource:
    """Lists hooks through ``codex app-server`` over stdio, bounded by ``timeout`` seconds."""

    def __init__(self, executable: str | None = None, timeout: float = DEFAULT_TIMEOUT_SECONDS):
        self._executable = executable
        self._timeout = timeout

    def list_hooks(self, env: Mapping[str, str], cwd: Path) -> list[CodexHook]:
        executable = self._executable or find_codex(env)
        if not executable:
            raise CodexUnavailable("the codex CLI was not found on PATH")
        deadline = time.monotonic() + self._timeout
        try:
            process = subprocess.Popen(
                # Plugins off: this short-lived server has no use for a marketplace sync.
                [executable, "app-server", "-c", "features.plugins=false"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=dict(env),
                cwd=cwd if cwd.is_dir() else None,
                start_new_session=True,  # never receives the terminal's Ctrl-C meant for us
            )
        except OSError as exc:
            raise CodexUnavailable(f"codex app-server could not start ({exc})") from exc
        try:
            return self._converse(process, cwd, deadline)
        finally:
            _stop(process)

    def _converse(
        self, process: subprocess.Popen[bytes], cwd: Path, deadline: float
    ) -> list[CodexHook]:
        assert process.stdin is not None and process.stdout is not None
        messages = [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"clientInfo": {"name": "mytty", "version": "1"}},
            },
            {"jsonrpc": "2.0", "method": "initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
        ]
        try:
            process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
            process.stdin.flush()
        except OSError as exc:
            raise CodexUnavailable(f"codex app-server exited early ({exc})") from exc
        reply = _read_reply(process, 2, deadline)
        if "error" in reply:
            message = reply["error"].get("message") if isinstance(reply["error"], dict) else None
            raise CodexUnavailable(f"codex app-server refused hooks/list ({message})")
        hooks: list[CodexHook] = []
        for entry in (reply.get("result") or {}).get("data") or []:
            for raw in entry.get("hooks") or []:
                hook = _hook_from_wire(raw) if isinstance(raw, dict) else None
                if hook:
                    hooks.append(hook)
        return hooks


def _read_reply(
    process: subprocess.Popen[bytes], request_id: int, deadline: float
) -> dict[str, Any]:
    """Read JSON lines until the response to ``request_id``; notifications are skipped."""
    assert process.stdout is not None
    stream = process.stdout
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while True:
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if isinstance(message, dict) and message.get("id") == request_id:
                    return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CodexUnavailable("codex app-server did not answer in time")
            if not selector.select(remaining):
                continue
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                raise CodexUnavailable("codex app-server exited without answering")
            buffer += chunk


def _stop(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout):
        try:
            if stream:
                stream.close()
        except OSError:
            pass
    # The server runs in its own session (started above), so its group id is its pid; signal
    # the group so helpers it spawned go too.
    if process.poll() is None:
        _signal_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGKILL)
            process.wait()


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
