from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.support.harness import BackgroundCtl, Mytty

# The suite shares two cores with tmux servers and controllers: a draw that is slow because the
# machine is busy is not a slow strategy, and a wall-clock deadline would make verdicts depend on
# load. Each test still sets its own number of examples.
settings.register_profile(
    "mytty", suppress_health_check=[HealthCheck.too_slow], deadline=None, print_blob=True
)
settings.load_profile("mytty")


def pytest_runtest_setup(item: pytest.Item) -> None:
    # Never a silent pass or an "expected failure": a tmux test without tmux is a failure, so a
    # machine that lacks tmux can't report green.
    if "tmux" in item.keywords and shutil.which("tmux") is None:
        pytest.fail("tmux is not installed (scripts/test installs it with apt-get)", pytrace=False)


def _running() -> Iterator[Mytty]:
    m = Mytty()
    try:
        m.start()
        yield m
    finally:
        m.close()


@pytest.fixture
def mytty() -> Iterator[Mytty]:
    """A private tmux server with a running controller."""
    yield from _running()


@pytest.fixture
def bare_mytty() -> Iterator[Mytty]:
    """A private tmux server (and paths) without a controller; the test starts it."""
    m = Mytty()
    try:
        yield m
    finally:
        m.close()


@pytest.fixture(scope="module")
def shared_mytty() -> Iterator[Mytty]:
    """One controller for a whole module, for tests that only need fresh panes."""
    yield from _running()


@pytest.fixture
def background() -> Iterator[list[BackgroundCtl]]:
    """Collects BackgroundCtl commands a test starts; kills the ones still running at the end."""
    started: list[BackgroundCtl] = []
    yield started
    for job in started:
        job.kill()
