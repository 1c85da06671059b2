"""The verified-version record: written atomically 0600, read back defensively."""

from __future__ import annotations

import stat
from pathlib import Path

from mytty.core.events import AgentProvider
from mytty.verify.runner import Coverage, VerifyReport, last_verified, record


def _report(version: str) -> VerifyReport:
    return VerifyReport(
        AgentProvider.CODEX, "/usr/bin/codex", version, rows=[Coverage("started", "hook")]
    )


def test_record_keeps_the_last_version_per_provider(tmp_path: Path) -> None:
    record(tmp_path, _report("codex-cli 0.170.0"), "2026-12-01T00:00:00Z")
    record(tmp_path, _report("codex-cli 0.171.0"), "2026-12-01T01:00:00Z")
    assert last_verified(tmp_path) == {"codex": "codex-cli 0.171.0"}
    mode = stat.S_IMODE((tmp_path / "verified.json").stat().st_mode)
    assert mode == 0o600


def test_a_broken_record_reads_as_never_verified_and_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "verified.json").write_text("{not json")
    assert last_verified(tmp_path) == {}
    (tmp_path / "verified.json").write_text('["a list"]')
    assert last_verified(tmp_path) == {}
    record(tmp_path, _report("codex-cli 0.171.0"), "2026-12-01T00:00:00Z")
    assert last_verified(tmp_path) == {"codex": "codex-cli 0.171.0"}


def test_report_json_has_every_row_and_says_ok() -> None:
    report = _report("v")
    wire = report.to_json()
    assert wire["coverage"] == {"started": {"outcome": "hook", "detail": ""}}
    assert wire["ok"] is True
    report.leaks.append("example.com:443")
    report.problems.append("leak")
    assert report.to_json()["ok"] is False
