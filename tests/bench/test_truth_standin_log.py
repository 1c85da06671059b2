"""The stand-ins' truth log (``MYTTY_STANDIN_TRUTH=1``), read back as the soak reads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.bench import truth_model as tm
from tests.support.harness import TESTS_DIR


def run_standin(tmp_path: Path, name: str, stdin: str, truth: bool) -> list[Path]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MYTTY_", "CLAUDE", "CODEX_"))}
    env.update(HOME=str(tmp_path), MYTTY_STANDIN_DIR=str(tmp_path), MYTTY_SURFACE_ID="P1")
    if truth:
        env["MYTTY_STANDIN_TRUTH"] = "1"
    subprocess.run(
        [sys.executable, str(TESTS_DIR / "standins" / name), "--", "@standin: sleep 0.05"],
        input=stdin,
        env=env,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return sorted(tmp_path.glob("*.truth.jsonl"))


def test_a_standin_logs_its_turns_on_the_monotonic_clock(tmp_path: Path) -> None:
    before = time.monotonic()
    [log] = run_standin(tmp_path, "cursor-agent", "@standin: fail\n", truth=True)
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows[0]["pane"] == "P1" and rows[0]["name"] == "cursor-agent"
    assert all(before <= r["t"] <= time.monotonic() for r in rows)
    assert [r["t"] for r in rows] == sorted(r["t"] for r in rows)
    states = [c.state for c in tm.changes_from_log(rows)]
    assert states == [tm.STARTING, tm.RUNNING, tm.SUCCEEDED, tm.RUNNING, tm.FAILED, tm.EXITED]


def test_without_the_variable_nothing_is_logged(tmp_path: Path) -> None:
    assert run_standin(tmp_path, "cursor-agent", "", truth=False) == []
