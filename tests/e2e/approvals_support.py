"""Helpers of the approvals end-to-end tests: config.toml's [approvals], the hook by hand,
the human commands.

A running controller reloads config.toml when it is saved; :func:`set_approvals` edits the
file (with tomlkit, as a user's editor would keep it) and waits for the controller's log to
say it reloaded, so the next request sees the new hold and rules.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import tomlkit

from tests.support.harness import HOOK, MYTTY, Mytty, wait_until


def config_path(m: Mytty) -> Path:
    return m.mytty_home / "config.toml"


def set_approvals(
    m: Mytty, *, hold: float | None = None, rules: list[dict[str, str]] | None = None
) -> None:
    """Set ``[approvals] hold_seconds`` and/or the rules, and wait until they are in use."""
    path = config_path(m)
    text = path.read_text() if path.exists() else ""
    doc = tomlkit.parse(text)
    approvals = doc.setdefault("approvals", tomlkit.table())
    if hold is not None:
        approvals["hold_seconds"] = hold
    if rules is not None:
        if "rule" in approvals:
            del approvals["rule"]
        if rules:
            aot = tomlkit.aot()
            for rule in rules:
                table = tomlkit.table()
                table.update(rule)
                aot.append(table)
            approvals["rule"] = aot
    before = m.log().count("reloaded; the new settings are in use")
    new = tomlkit.dumps(doc)
    if new == text:
        return
    path.write_text(new)
    wait_until(
        lambda: m.log().count("reloaded; the new settings are in use") > before,
        10,
        message="the controller to reload config.toml",
    )


def mytty(
    m: Mytty, *args: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """The human's ``mytty`` command, from outside every pane (a person's terminal)."""
    return subprocess.run(
        [MYTTY, *args],
        env=m.env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def open_approvals(m: Mytty) -> list[dict[str, Any]]:
    done = mytty(m, "approvals", "--json")
    assert done.returncode == 0, done.stderr
    entries: list[dict[str, Any]] = json.loads(done.stdout)
    return entries


def wait_for_request(m: Mytty, pane: str, timeout: float = 30, **match: object) -> dict[str, Any]:
    """The open request of ``pane`` (and whose fields equal ``match``), once there is one."""

    def probe() -> dict[str, Any] | None:
        for entry in open_approvals(m):
            if entry["paneID"] == pane and all(entry.get(k) == v for k, v in match.items()):
                return entry
        return None

    return wait_until(probe, timeout, message=f"an open permission request of pane {pane}")


class HookRun:
    """``mytty-agent-hook <provider>`` run by hand with a payload, as the agent runs it."""

    def __init__(
        self, m: Mytty, env: dict[str, str], provider: str, payload: dict[str, Any] | bytes
    ) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.proc = subprocess.Popen(
            [HOOK, provider],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.close()

    def result(self, timeout: float = 30) -> tuple[int, bytes, bytes]:
        assert self.proc.stdout is not None and self.proc.stderr is not None
        code = self.proc.wait(timeout)
        return code, self.proc.stdout.read(), self.proc.stderr.read()
