"""Per-worker memory caps: the probe for real (here, in a container, neither way exists), the
command lines with a fake systemd, and a delegated cgroup imitated in a directory."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Sequence
from pathlib import Path

from mytty.daemon.resources import memcap
from mytty.daemon.resources.caps import MemoryCaps
from mytty.daemon.resources.memcap import CapSupport


def test_the_real_probe_answers_and_never_raises() -> None:
    support = memcap.probe()
    assert support.method in (None, memcap.SYSTEMD, memcap.CGROUP)
    assert support.detail
    if support.method is None:  # this machine: it says why, for doctor and spawn
        assert "systemd" in support.detail and "cgroup" in support.detail


class FakeSystemd:
    def __init__(self, *, works: bool, result: str = "success") -> None:
        self.works = works
        self.result = result
        self.calls: list[list[str]] = []

    def __call__(self, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(argv))
        if argv[0] == memcap.SYSTEMD:
            code, err = (
                (0, "") if self.works else (1, "Failed to connect to bus: No medium found\n")
            )
            return subprocess.CompletedProcess(argv, code, "", err)
        if argv[:4] == ["systemctl", "--user", "show", "-p"]:
            return subprocess.CompletedProcess(argv, 0, self.result + "\n", "")
        return subprocess.CompletedProcess(argv, 0, "", "")


def test_systemd_is_chosen_when_a_user_manager_takes_a_capped_scope() -> None:
    fake = FakeSystemd(works=True)
    support = memcap.probe(env={}, run=fake, which=lambda _name: "/usr/bin/systemd-run")
    assert support.method == memcap.SYSTEMD
    assert fake.calls[0] == [
        "systemd-run",
        "--user",
        "--scope",
        "--quiet",
        "-p",
        "MemoryMax=64M",
        "--",
        "true",
    ]


def test_neither_way_says_why_for_each() -> None:
    fake = FakeSystemd(works=False)
    support = memcap.probe(
        env={}, run=fake, which=lambda _name: "/usr/bin/systemd-run", own_cgroup=lambda: "/"
    )
    assert support.method is None
    assert support.detail == (
        "no user systemd manager takes scopes: Failed to connect to bus: No medium found; "
        "no delegated cgroup v2 (set MYTTY_CGROUP to one)"
    )
    missing = memcap.probe(env={}, run=fake, which=lambda _name: None, own_cgroup=lambda: None)
    assert missing.detail.startswith("systemd-run is not installed")


def test_the_wrapped_command_lines() -> None:
    argv = ["claude", "--model", "x", "--", "task"]
    name = memcap.cap_name("04AA9DA1-F255", 2)
    assert name == "mytty-worker-04aa9da1-f255-2"
    assert memcap.wrap_systemd(argv, name, 2048) == [
        "systemd-run",
        "--user",
        "--scope",
        "--quiet",
        f"--unit={name}",
        "-p",
        "MemoryMax=2048M",
        "-p",
        "MemorySwapMax=0",
        "--",
        *argv,
    ]
    wrapped = memcap.wrap_cgroup(argv, "/sys/fs/cgroup/u/mytty-worker-x")
    assert wrapped[:3] == ["/bin/sh", "-c", 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"']
    assert wrapped[3:] == ["mytty-memory-cap", "/sys/fs/cgroup/u/mytty-worker-x", *argv]


def test_the_cgroup_wrapper_moves_itself_in_and_becomes_the_agent(tmp_path: Path) -> None:
    # A directory stands in for the cgroup: the shell writes its pid, then execs the command.
    group = tmp_path / "grp"
    group.mkdir()
    out = subprocess.run(
        memcap.wrap_cgroup(["/bin/sh", "-c", "echo $$"], str(group)),
        capture_output=True,
        text=True,
        check=True,
    )
    assert group.joinpath("cgroup.procs").read_text().strip() == out.stdout.strip()


def test_a_delegated_cgroup_is_found_probed_and_read(tmp_path: Path) -> None:
    base = tmp_path / "user.slice" / "me"
    own = base / "controller.scope"
    own.mkdir(parents=True)
    (base / "cgroup.controllers").write_text("cpu memory pids\n")
    (base / "cgroup.subtree_control").write_text("memory pids\n")
    assert memcap.cgroup_candidates({}, "/user.slice/me/controller.scope", str(tmp_path)) == [
        str(base)
    ]
    assert memcap.cgroup_candidates({"MYTTY_CGROUP": "/x"}, "/a/b", str(tmp_path)) == ["/x"]
    # A real cgroup makes memory.max in every new child; a plain directory does not.
    assert memcap.probe_cgroup(str(base)) == f"cgroups under {base} have no memory.max"
    (base / "cgroup.subtree_control").write_text("pids\n")
    assert (
        memcap.probe_cgroup(str(base))
        == f"the memory controller is not delegated to {base}'s children"
    )
    worker = Path(memcap.make_cgroup(str(base), "mytty-worker-a-0", 512))
    assert (worker / "memory.max").read_text() == str(512 * 1024 * 1024)
    assert memcap.oom_killed_cgroup(str(worker)) is False
    (worker / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n")
    assert memcap.oom_killed_cgroup(str(worker)) is True


def test_caps_wrap_only_when_enforced_and_read_the_kill_back() -> None:
    async def main() -> None:
        fake = FakeSystemd(works=True, result="oom-kill")
        limit: list[int | None] = [None]
        caps = MemoryCaps(
            limit_mb=lambda: limit[0],
            probe=lambda: CapSupport(memcap.SYSTEMD, None, "systemd-run works"),
            run=fake,
        )
        assert await caps.wrap("J1", 0, ["claude"]) == (["claude"], None)  # no cap set
        limit[0] = 1024
        argv, cap = await caps.wrap("J1", 0, ["claude"])
        assert argv[0] == "systemd-run" and cap == (1024, "mytty-worker-j1-0")
        assert await caps.killed("mytty-worker-j1-0") is True
        assert ["systemctl", "--user", "reset-failed", "mytty-worker-j1-0.scope"] in fake.calls
        nowhere = MemoryCaps(limit_mb=lambda: 1024, probe=lambda: CapSupport(None, None, "neither"))
        assert await nowhere.wrap("J2", 0, ["claude"]) == (["claude"], None)  # not enforced
        assert await nowhere.killed("x") is False

    asyncio.run(main())
