"""``mytty doctor`` on admission: the limits against this machine, and the memory cap, which
in a place without a user systemd or a delegated cgroup v2 is said not to be enforced."""

from __future__ import annotations

import pytest

from mytty.daemon.resources.memcap import probe
from tests.cli.test_doctor import doctor
from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def test_the_limits_and_the_memory_cap_are_reported(mytty: Mytty) -> None:
    m = mytty
    _code, findings = doctor(m)
    admission = next(f for f in findings if f["area"] == "admission")
    assert admission["status"] == "ok" and "max_workers = " in admission["detail"]
    assert "MB of memory available now" in admission["detail"]
    cap = next(f for f in findings if f["area"] == "memory cap")
    assert cap["status"] == "note" and "no worker_memory_max_mb set" in cap["detail"]

    config = m.mytty_home / "config.toml"
    config.write_text(
        config.read_text().replace("# worker_memory_max_mb = 4096", "worker_memory_max_mb = 2048")
    )
    _code, findings = doctor(m)
    cap = next(f for f in findings if f["area"] == "memory cap")
    if probe().method is None:  # this machine (a container): the cap can't be enforced
        assert cap["status"] == "warn", cap
        assert cap["detail"].startswith("worker_memory_max_mb = 2048 is NOT enforced: ")
        assert "MYTTY_CGROUP" in cap["fix"]
    else:
        assert cap["status"] == "ok" and "is enforced" in cap["detail"]


def test_a_broken_config_does_not_pass_for_the_defaults(mytty: Mytty) -> None:
    m = mytty
    config = m.mytty_home / "config.toml"
    kept = config.read_text()
    config.write_text("[admission\nmax_workers = 3\n")  # not TOML
    try:
        _code, findings = doctor(m)
    finally:
        config.write_text(kept)
    admission = next(f for f in findings if f["area"] == "admission")
    assert admission["status"] == "warn", admission
    assert "can't be read" in admission["detail"] and "max_workers" not in admission["detail"]
    assert "running controller keeps" in admission["detail"]
