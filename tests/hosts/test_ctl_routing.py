"""How ``mytty-ctl`` routes a command to a host, without a host: what it sends, what it
refuses, and what its fast path imports (no ssh here: a fake forward socket)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mytty.cli import ctl
from mytty.cli.hosts.route import MIXED
from mytty.control import agent_spawn, agent_wait, read, split
from mytty.core.hosts import links
from tests.cli.conftest import FakeController
from tests.cli.test_ctl_imports import forbidden_in, imported_modules

P = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
J = "11111111-2222-4333-8444-555555555555"
K = "66666666-7777-4888-9999-AAAAAAAAAAAA"


def test_a_host_option_leaves_this_machines_facts_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYTTY_SURFACE_ID", P)  # the lead's own pane: meaningless on b
    argv = ["--provider", "claude", "--task", "t", "--host", "b"]
    request, _, _, route = ctl.build_routed(agent_spawn.COMMAND, argv, None)
    assert route == "b"
    assert "anchorPaneID" not in request
    assert request["callerWorkingDirectory"] is None
    local, _, _, route = ctl.build_routed(agent_spawn.COMMAND, argv[:-2], None)
    assert route is None and local["anchorPaneID"] == P and local["callerWorkingDirectory"]


def test_a_qualified_id_routes_and_is_sent_bare() -> None:
    request, _, _, route = ctl.build_routed(read.COMMAND, [f"b:{P}"], None)
    assert (route, request["paneID"]) == ("b", P)
    request, _, _, route = ctl.build_routed(read.COMMAND, [f"b:{P}"], "b")
    assert (route, request["paneID"]) == ("b", P)
    request, _, _, route = ctl.build_routed(read.COMMAND, [P], None)
    assert (route, request["paneID"]) == (None, P)


def test_ids_of_another_host_than_the_option_are_refused() -> None:
    with pytest.raises(ctl.CtlError) as caught:
        ctl.build_routed(read.COMMAND, [f"c:{P}", "--host", "b"], None)
    assert caught.value.code == "usage" and "host c" in caught.value.message


def test_paths_for_a_host_are_its_own_absolute_paths() -> None:
    request, _, _, _ = ctl.build_routed(split.COMMAND, [f"b:{P}", "--cwd", "/srv/app"], None)
    assert request["workingDirectory"] == "/srv/app"
    for relative in ("src", "~/src"):
        with pytest.raises(ctl.CtlError) as caught:
            ctl.build_routed(split.COMMAND, [f"b:{P}", "--cwd", relative], None)
        assert caught.value.code == "usage" and "absolute directory of host b" in str(
            caught.value.message
        )


def test_agent_wait_may_mix_hosts_and_nothing_else_may() -> None:
    argv = [f"b:{J}", K, "--any", "--until", "completed"]
    request, timeout, _, route = ctl.build_routed(agent_wait.COMMAND, argv, None)
    assert route == MIXED
    assert request["jobIDs"] == [{"rawValue": f"b:{J}"}, {"rawValue": K}]
    assert timeout == 125.0
    same, _, _, route = ctl.build_routed(
        agent_wait.COMMAND, [f"b:{J}", f"b:{K}", "--all", "--until", "completed"], None
    )
    assert route == "b" and same["jobIDs"] == [{"rawValue": J}, {"rawValue": K}]
    assert same["jobID"] == {"rawValue": J}
    with pytest.raises(ctl.CtlError) as caught:
        ctl.build_routed(agent_spawn.COMMAND, ["--provider", "claude", "--task", "t",
                                               "--anchor", f"b:{P}", "--host", "c"], None)  # fmt: skip
    assert caught.value.code == "usage"


def test_leading_host_option_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MYTTY_HOST", raising=False)
    assert ctl._leading_host(["--host", "b", "list"]) == (["list"], "b")
    assert ctl._leading_host(["--host=b", "list"]) == (["list"], "b")
    assert ctl._leading_host(["list"]) == (["list"], None)
    monkeypatch.setenv("MYTTY_HOST", "gpu")
    assert ctl._leading_host(["list"]) == (["list"], "gpu")
    assert ctl._leading_host(["--host", "b", "list"]) == (["list"], "b")


# -- the fast path ---------------------------------------------------------------------------------
@pytest.fixture
def forwarded(tmp_path: Path) -> Iterator[tuple[FakeController, dict[str, str]]]:
    """A home whose host ``b`` has a live forward (a fake controller at ``b.sock``) and a
    handshake newer than config.toml."""
    home = tmp_path / "m"
    home.mkdir()
    (home / "config.toml").write_text('[hosts.b]\nssh = "me@build1"\n')
    directory = links.link_dir(os.getuid(), str(home))
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fake = FakeController(tmp_path)
    os.symlink(fake.path, links.forward_socket(directory, "b"))
    time.sleep(0.01)  # the record must be newer than config.toml (mtime resolution)
    Path(links.record_path(directory, "b")).write_text("{}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MYTTY_")}
    env.update(MYTTY_HOME=str(home))
    try:
        yield fake, env
    finally:
        fake.close()
        for name in ("b.sock", "b.json"):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


def test_the_fast_path_reads_no_configuration_and_qualifies_the_reply(
    forwarded: tuple[FakeController, dict[str, str]],
) -> None:
    fake, env = forwarded
    fake.reply = lambda _body: b'{"type":"list","panes":[{"paneID":"%s"}]}\n' % P.encode()
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "mytty.cli.ctl", "--host", "b", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == {"panes": [{"paneID": f"b:{P}"}], "type": "list"}
    assert fake.decoded == [{"type": "list"}]
    modules = imported_modules(proc.stderr)
    assert "mytty.cli.hosts.link" in modules  # the probe saw the host path
    assert forbidden_in(modules) == []
    # Neither the configuration nor ssh: a stat pair and a connect.
    assert {"tomllib", "subprocess", "mytty.core.hosts.config"} & modules == set()


def test_a_stale_record_takes_the_slow_path(
    forwarded: tuple[FakeController, dict[str, str]], tmp_path: Path
) -> None:
    fake, env = forwarded
    # config.toml saved after the handshake, naming no host b any more: host-not-found
    # (and nothing reached the old forward).
    (tmp_path / "m" / "config.toml").write_text("[hosts]\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mytty.cli.ctl", "--host", "b", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("mytty-ctl: host-not-found: no host 'b' in ")
    assert fake.connections == 0
