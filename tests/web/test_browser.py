"""The web view in a real browser: Debian's headless Chromium, driven with Playwright (no browser
download: ``executable_path=/usr/bin/chromium``), at a phone's 390×844 and a desktop's
1280×800, against a real controller on a private tmux server with the stand-in agents.

Pairing, the three stand-ins on the board, an input request answered from the phone (the
stand-in reads exactly that answer), a state change pushed to both open pages without a reload,
and the "disconnected, retrying" state while the server is gone. Screenshots of both sizes go
to ``tests/artifacts/web/`` (ignored by git; ``MYTTY_TEST_ARTIFACTS`` moves it), which the
run prints.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    running_team,
    spawn,
)
from tests.support.harness import Mytty, wait_until
from tests.web.support import Served

pytestmark = pytest.mark.tmux

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
ARTIFACTS = Path(
    os.environ.get("MYTTY_TEST_ARTIFACTS")
    or Path(__file__).resolve().parents[1] / "artifacts" / "web"
)
#: How long a change the controller has may take to show on an open page.
LIVE_DEADLINE_MS = 1000


def shot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path


@dataclass
class World:
    m: Mytty
    served: Served
    anchor: str
    phone: Any
    desktop: Any


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield launched
        finally:
            launched.close()


def paired_page(
    browser: Any, served: Served, link: str, viewport: dict[str, int], **kw: Any
) -> Any:
    context = browser.new_context(viewport=viewport, **kw)
    page = context.new_page()
    page.goto(link)
    page.wait_for_url(f"{served.base}/")  # the code is gone from the address bar
    page.wait_for_selector("main .board")
    return page


@pytest.fixture(scope="module")
def world(browser: Any) -> Iterator[World]:
    for m in running_team():
        anchor = new_anchor(m)
        served = Served(m.env)
        try:
            phone = paired_page(
                browser, served, served.link, PHONE, is_mobile=True, has_touch=True,
                device_scale_factor=2,
            )  # fmt: skip
            desktop = paired_page(browser, served, served.new_link(), DESKTOP)
            yield World(m, served, anchor, phone, desktop)
        finally:
            served.stop()


def card(page: Any, pane: str) -> Any:
    return page.locator(f"#agent-{pane}")


def test_both_sizes_pair_and_show_the_three_stand_ins(world: World) -> None:
    m = world.m
    jobs = {
        provider: spawn(m, "--provider", provider, "--task", "@standin: sleep 600",
                        "--label", f"{provider}-worker", "--anchor", world.anchor)
        for provider in ("claude", "codex", "cursor")
    }  # fmt: skip
    try:
        for job in jobs.values():
            assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
        for page, name in ((world.phone, "phone"), (world.desktop, "desktop")):
            for provider, job in jobs.items():
                found = card(page, pane_of(job))
                found.wait_for(timeout=10_000)
                assert found.locator(".title").inner_text() == f"{provider}-worker"
                found.locator(".state", has_text="running").wait_for(timeout=10_000)
            assert "/pair/" not in page.url
            assert page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.viewport_size["width"], f"{name} scrolls sideways"
            shot(page, f"{name}-board")
        # The phone opens a job's detail: its screen as `read` returns it.
        phone = world.phone
        phone.click(f"#agent-{pane_of(jobs['claude'])} a.title")
        phone.wait_for_url(re.compile(rf".*/job/{job_id(jobs['claude'])}$"))
        phone.locator("pre.screen", has_text="STANDIN").wait_for(timeout=10_000)
        shot(phone, "phone-job-detail")
        phone.go_back()
        phone.wait_for_selector("main .board")
    finally:
        for job in jobs.values():
            m.ctl("agent", "close", job_id(job))


def answers_seen(m: Mytty, session: str) -> list[Any]:
    """The AskUserQuestion answers the stand-in Claude of ``session`` wrote to its transcript
    (what its tool returned to the model)."""
    found: list[Any] = []
    for transcript in (m.home / ".claude" / "projects").glob(f"*/{session}.jsonl"):
        for line in transcript.read_text().splitlines():
            result = json.loads(line).get("toolUseResult")
            if isinstance(result, dict) and "answers" in result:
                found.append(result["answers"])
    return found


def test_an_input_request_is_answered_from_the_phone(world: World) -> None:
    m, phone = world.m, world.phone
    job = spawn(m, "--provider", "claude", "--task", "@standin: ask", "--label", "asker",
                "--anchor", world.anchor)  # fmt: skip
    try:
        assert agent_wait(m, job, "attention", 30)["job"]["state"] == "waiting-input"
        question = phone.locator(".card.question", has_text="asker")
        question.wait_for(timeout=10_000)
        card(phone, pane_of(job)).locator(".need", has_text="input").wait_for(timeout=10_000)
        shot(phone, "phone-question")
        question.locator("textarea").fill("Option B, from the phone")
        question.locator("button.send").click()
        question.wait_for(state="detached", timeout=10_000)
        session = agent_wait(m, job, "running", 5)["job"]["sessionID"]
        seen = wait_until(lambda: answers_seen(m, session), 15, message="the answer")
        assert seen == [{"Which option should I take?": "Option B, from the phone"}]
        assert completed(m, job)["state"] == "succeeded"
        # The desktop never showed the card again once it was answered.
        world.desktop.locator(".card.question", has_text="asker").wait_for(
            state="detached", timeout=10_000
        )
    finally:
        m.ctl("agent", "close", job_id(job))


def test_a_state_change_reaches_both_open_pages_without_a_reload(world: World) -> None:
    m = world.m
    job = spawn(m, "--provider", "codex", "--task", "@standin: sleep 0", "--label", "flip",
                "--anchor", world.anchor)  # fmt: skip
    pane = pane_of(job)
    try:
        assert completed(m, job)["state"] == "succeeded"
        pages = (world.phone, world.desktop)
        loaded = [p.evaluate("performance.timeOrigin") for p in pages]
        for page in pages:
            page.locator(f"#agent-{pane}.state-succeeded").wait_for(timeout=10_000)
        m.ctl("agent", "send", job_id(job), "@standin: sleep 5", "--enter").ok()
        assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
        # The controller has it now: each open page shows it within the deadline.
        for page in pages:
            page.locator(f"#agent-{pane}.state-running").wait_for(timeout=LIVE_DEADLINE_MS)
        assert [p.evaluate("performance.timeOrigin") for p in pages] == loaded  # no reload
    finally:
        m.ctl("agent", "close", job_id(job))


def test_the_page_says_disconnected_while_the_server_is_gone(world: World) -> None:
    phone, port = world.phone, world.served.port
    status = phone.locator("#connection")
    assert status.is_hidden()
    world.served.stop()
    status.filter(has_text="Disconnected, retrying").wait_for(timeout=10_000)
    shot(phone, "phone-disconnected")
    world.served = Served(world.m.env, listen=f"127.0.0.1:{port}")
    status.wait_for(state="hidden", timeout=15_000)  # back, with the same session
    phone.wait_for_selector("main .board .summary")
