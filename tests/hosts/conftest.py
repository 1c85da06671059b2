"""Fixtures of the host tests: one second machine (a real sshd on loopback and a second user
account with its own controller, :mod:`tests.hosts.remote`) per session, and a local
controller whose ``config.toml`` names it as host ``b``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.core.hosts.links import link_dir
from tests.hosts.remote import SecondMachine, prerequisites
from tests.support.harness import Mytty, kill_processes_naming

pytestmark = pytest.mark.tmux


@pytest.fixture(scope="session")
def machine() -> Iterator[SecondMachine]:
    """The other machine, for the whole session (sshd + account + tmux + controller)."""
    missing = prerequisites()
    if missing is not None:
        pytest.fail(missing, pytrace=False)
    m = SecondMachine()
    try:
        m.start()
        yield m
    finally:
        m.close()


@pytest.fixture(autouse=True)
def _remote_controller_up(request: pytest.FixtureRequest) -> None:
    """A test that killed the remote controller leaves it running again for the next one."""
    if "machine" in request.fixturenames:
        machine = request.getfixturevalue("machine")
        if machine.user.proc is None or machine.user.proc.poll() is not None:
            machine.user.start_controller()


def links_of(m: Mytty) -> str:
    """The SSH links directory of ``m``'s home."""
    return link_dir(0, str(m.mytty_home))


def close_links(m: Mytty) -> None:
    """End the masters ``m``'s home started and remove its links directory."""
    directory = links_of(m)
    kill_processes_naming(Path(directory))
    shutil.rmtree(directory, ignore_errors=True)


def local_with_host(
    machine: SecondMachine,
    *,
    start: bool = True,
    config: str = "",
    env: dict[str, str] | None = None,
    **table: Any,
) -> Mytty:
    """Host A: a harness whose ``config.toml`` names the machine as host ``b`` (``table``:
    keys of :meth:`SecondMachine.host_table`; ``config``: more TOML before it)."""
    m = Mytty(extra_env=env)
    m.mytty_home.mkdir(parents=True, exist_ok=True)
    (m.mytty_home / "config.toml").write_text(config + machine.host_table(**table))
    if start:
        m.start()
    return m


@pytest.fixture
def local(machine: SecondMachine) -> Iterator[Mytty]:
    """A local controller (its own tmux server and home) with ``[hosts.b]`` = the machine."""
    m = local_with_host(machine)
    try:
        yield m
    finally:
        m.close()
        close_links(m)


@pytest.fixture(scope="module")
def shared_local(machine: SecondMachine) -> Iterator[Mytty]:
    """The same, once per module."""
    m = local_with_host(machine)
    try:
        yield m
    finally:
        m.close()
        close_links(m)
