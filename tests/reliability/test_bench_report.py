"""``scripts/bench/report --quick --json`` runs every benchmark small and reports every row.

A smoke test of the report (issue 15): each bench script still runs, still prints its JSON, and
the report turns it into the rows it promises, each with a measured value and, where the row
has one, a floor measured in the same run. The figures themselves are not judged here (a
loaded CI machine makes them noisy); the full report is for that.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.harness import TESTS_DIR

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

REPORT = TESTS_DIR.parent / "scripts" / "bench" / "report"
#: Rows that may be absent for a reason the row states (a bench another helper lands).
OPTIONAL: set[str] = {"hosts.list", "hosts.fresh", "hosts.exec"}  # need root: a 2nd account
WITH_FLOOR = {
    "hook.wrapper", "hook.launcher", "ctl.list", "ctl.read", "ingest.rate", "ingest.p99",
    "approvals.bare", "ctl.list.bare", "ctl.read.bare",
    "wake.p95.1", "wake.p95.1000", "list.1", "list.50", "list.200", "idle.rss.50",
    "idle.rss.200", "restart.100k", "spawn.10", "crash", "native.exit_p95",
}  # fmt: skip


@pytest.mark.timeout(900)
def test_the_quick_report_has_every_row() -> None:
    done = subprocess.run(
        [sys.executable, str(REPORT), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=850,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout)
    assert report["failures"] == [] and report["quick"] is True
    assert report["machine"]["cpus"] and report["commit"]
    rows = {row["id"]: row for row in report["rows"]}
    ids = [line.strip().strip(",").strip('"') for line in _row_ids()]
    assert set(rows) == set(ids), set(ids) ^ set(rows)
    for row_id, row in rows.items():
        if row_id in OPTIONAL and row["value"] is None:
            assert row["note"].startswith("n/a"), row
            continue
        assert isinstance(row["value"], int | float), row
        if row_id in WITH_FLOOR:
            assert row["floor"] and row["ratio"] is not None, row
    # The crash rounds and the fuzz cases also checked what they promise.
    assert "0 lost, 0 duplicated" in rows["crash"]["note"]
    assert rows["fuzz"]["value"] >= 300 and rows["fuzz"]["note"] == "all passed"


def _row_ids() -> list[str]:
    """The report's ROW_IDS, read from the script (it is not an importable module)."""
    text = REPORT.read_text()
    block = text[text.index("ROW_IDS = (") + len("ROW_IDS = (") : text.index(")  # fmt: skip")]
    return [part for part in block.replace("\n", " ").split(",") if part.strip()]
