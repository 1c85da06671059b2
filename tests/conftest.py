from __future__ import annotations

import importlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.reliability import counts
from tests.support.harness import BackgroundCtl, Mytty
from tests.support.parallel import Turns, worker_count

# The suite shares two cores with tmux servers and controllers: a draw that is slow because the
# machine is busy is not a slow strategy, and a wall-clock deadline would make verdicts depend on
# load. Each test still sets its own number of examples.
settings.register_profile(
    "mytty", suppress_health_check=[HealthCheck.too_slow], deadline=None, print_blob=True
)
settings.load_profile("mytty")


# -- parallel runs (scripts/test: -n auto --dist worksteal; tests/support/parallel.py) ----------
#: Modules whose tests compare timings of a quiet and a loaded run: they run ``alone``.
ALONE_MODULES = frozenset({"tests/reliability/test_hostile_clients.py"})
#: Folders whose conftest reports in the terminal summary. Under xdist the controller collects
#: nothing, so it would never load them: it registers them itself (see pytest_configure).
SUMMARY_CONFTESTS = ("tests.reliability.conftest", "tests.realagents.conftest")
_TURNS = pytest.StashKey[Turns]()  # a worker's end of the turns lock
_TURNS_DIR = pytest.StashKey[Path]()  # the controller's directory of the lock's files


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: object) -> None:
    """On the xdist controller, once it is sure to distribute (not with --collect-only)."""
    config.stash[_TURNS_DIR] = Path(tempfile.mkdtemp(prefix="mytty-turns-"))
    for name in SUMMARY_CONFTESTS:
        module = importlib.import_module(name)
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, f"{name} (xdist controller)")


def pytest_configure(config: pytest.Config) -> None:
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is not None and "mytty_turns" in workerinput:
        config.stash[_TURNS] = Turns(Path(workerinput["mytty_turns"]))


def pytest_unconfigure(config: pytest.Config) -> None:
    turns = config.stash.get(_TURNS, None)
    if turns is not None:
        turns.close()
    directory = config.stash.get(_TURNS_DIR, None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return worker_count()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    node.workerinput["mytty_turns"] = str(node.config.stash[_TURNS_DIR])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    # The reliability case counts were made on the worker: add them to the controller's.
    ran = getattr(node, "workeroutput", {}).get("mytty_counts")
    if ran is None:
        return
    for name, n in ran["counts"]:
        counts.add(name, n)
    for sock, answer, n in ran["outcomes"]:
        for _ in range(n):
            counts.outcome(sock, answer)


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput: dict[str, Any] | None = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["mytty_counts"] = {
            "counts": sorted(counts.snapshot().items()),
            "outcomes": [(s, a, n) for (s, a), n in sorted(counts.outcomes().items())],
        }


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.split("::", 1)[0] in ALONE_MODULES:
            item.add_marker(pytest.mark.alone)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Under xdist, an ``alone`` test waits for the running tests and holds back new ones.

    The whole protocol is inside the turn: the module fixtures a test sets up or tears down
    (controllers, tmux servers) are part of the load it makes.
    """
    turns = item.config.stash.get(_TURNS, None)
    if turns is None:
        return (yield)
    with turns.exclusive() if item.get_closest_marker("alone") else turns.shared():
        return (yield)


# -- tmux, fixtures -------------------------------------------------------------------------------
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
