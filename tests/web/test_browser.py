"""The web view in a real browser: Debian's headless Chromium driven over the DevTools protocol
(:mod:`tests.web.chromium`, stdlib only), at a phone's 390×844 and a desktop's 1280×800, against
a real ``mytty web`` and a real controller on a private tmux server with the stand-in agents.

Pairing, the three stand-ins on the board, a job's detail, one request approved and another
denied with a message from the page (each stand-in's hook printed exactly that decision, and
the audit says ``human:web`` with the session of the device that answered), a
pane printing markup shown as text with nothing of it run, an input request answered from the phone
(the stand-in reads exactly that answer), a state change pushed to both open pages within 1 s
without a reload, and the "disconnected, retrying" state while the server is gone. Clicks are
mouse events at the element's place on the screen. Screenshots of both sizes go to
``tests/artifacts/web/`` (ignored by git; ``MYTTY_TEST_ARTIFACTS`` moves it); the run prints
their paths.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.approvals_support import mytty, set_approvals, wait_for_request
from tests.e2e.jobs_support import (
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    running_team,
    spawn,
    standin_in,
)
from tests.support.harness import Mytty, wait_until
from tests.web.chromium import CHROMIUM, Browser, Page
from tests.web.support import Served

pytestmark = pytest.mark.tmux

ARTIFACTS = Path(
    os.environ.get("MYTTY_TEST_ARTIFACTS")
    or Path(__file__).resolve().parents[1] / "artifacts" / "web"
)
#: How an approval card's hold line starts within the hold, and after it.
HOLDING, IN_DIALOG = '"The agent waits for this answer"', '"The agent asks in its own dialog"'
#: How long a change the controller has may take to show on an open page.
LIVE_DEADLINE_S = 1.0


def shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = page.screenshot(ARTIFACTS / f"{name}.png")
    assert path.stat().st_size > 1000
    print(f"screenshot: {path}")
    return path


@dataclass
class World:
    m: Mytty
    served: Served
    anchor: str
    phone: Page
    desktop: Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    launched = Browser()
    try:
        yield launched
    finally:
        launched.close()


def paired_page(served: Served, link: str, page: Page) -> Page:
    page.goto(link)
    # The code is exchanged for the cookie and gone from the address bar.
    page.wait_for(f"location.href === {json.dumps(served.base + '/')}", 15)
    page.wait_visible("main .board", 15)
    return page


@pytest.fixture(scope="module")
def world(browser: Browser) -> Iterator[World]:
    for m in running_team():
        anchor = new_anchor(m)
        served = Served(m.env)
        world: World | None = None
        try:
            phone = browser.new_page(390, 844, mobile=True, scale=2)
            paired_page(served, served.link, phone)
            desktop = paired_page(served, served.new_link(), browser.new_page(1280, 800))
            world = World(m, served, anchor, phone, desktop)
            yield world
        finally:
            served.stop()
            if world is not None:
                world.served.stop()  # a test may have started another in its place


def sessions_by_age(m: Mytty) -> list[str]:
    """The web sessions' public ids, oldest first (the phone paired first)."""
    state = json.loads((m.mytty_home / "web" / "state.json").read_text())
    ordered = sorted(state["sessions"], key=lambda s: s["createdAt"])
    return [s["id"] for s in ordered]


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
            assert page.evaluate("innerWidth") == page.width
            for provider, job in jobs.items():
                card = f"#agent-{pane_of(job)}"
                page.wait_for(f"document.querySelector('{card} .state')?.innerText === 'running'")
                assert page.text(f"{card} .title") == f"{provider}-worker"
            assert "/pair/" not in page.url
            assert page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
            (cookie,) = page.cookies()
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict", cookie
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= page.width, f"{name} scrolls sideways"
            shot(page, f"{name}-board")
        # The phone opens a job's detail: its screen as `read` returns it.
        phone = world.phone
        phone.click(f"#agent-{pane_of(jobs['claude'])} a.title")
        phone.wait_for(f"location.pathname === '/job/{job_id(jobs['claude'])}'")
        phone.wait_for("document.querySelector('pre.screen')?.innerText.includes('STANDIN')")
        shot(phone, "phone-job-detail")
        phone.evaluate("history.back()")
        phone.wait_visible("main .board")
    finally:
        for job in jobs.values():
            m.ctl("agent", "close", job_id(job))


def permission_replies(m: Mytty, provider: str, pane: str) -> list[str]:
    """What the stand-in's PermissionRequest hook printed back to it, each time."""
    standin = standin_in(m, pane, provider)
    path = m.standin_dir / f"{provider}.{standin.pid}.hooks.jsonl"
    if not path.exists():
        return []
    runs = [json.loads(line) for line in path.read_text().splitlines()]
    return [r["stdout"] for r in runs if r["event"] == "PermissionRequest"]


def decision(behavior: str, message: str | None = None) -> str:
    body: dict[str, str] = {"behavior": behavior}
    if message is not None:
        body["message"] = message
    reply = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": body}}
    return json.dumps(reply, separators=(",", ":")) + "\n"


def test_one_request_approved_and_another_denied_with_a_message(world: World) -> None:
    m, phone, desktop = world.m, world.phone, world.desktop
    set_approvals(m, hold=120, rules=[])
    made, spared = m.home / "web_approved", m.home / "web_denied"
    allow = spawn(m, "--provider", "claude", "--label", "to-approve", "--cwd", str(m.home),
                  "--task", f"@standin: approve\n@standin: run touch {made}")  # fmt: skip
    deny = spawn(m, "--provider", "codex", "--label", "to-deny", "--cwd", str(m.home),
                 "--task", f"@standin: approve\n@standin: run touch {spared}")  # fmt: skip
    elsewhere = spawn(m, "--provider", "claude", "--label", "in-terminal", "--cwd", str(m.home),
                      "--task", "@standin: approve\n@standin: run true")  # fmt: skip
    try:
        asked = {
            name: wait_for_request(m, pane_of(job))["id"]
            for name, job in (("allow", allow), ("deny", deny), ("elsewhere", elsewhere))
        }
        for page in (phone, desktop):
            for ident in asked.values():
                page.wait_visible(f"#approval-{ident}")
        card = f"#approval-{asked['allow']}"
        assert f"touch {made}" in (phone.text(f"{card} pre.action") or "")
        shot(phone, "phone-approval")
        shot(desktop, "desktop-approval")
        desktop.click(f"{card} button.approve")  # the desktop approves, the phone denies
        for page in (phone, desktop):  # answered on one: gone from both
            page.wait_gone(card)
        note = 'use "the fixture" <b>instead</b>'
        card = f"#approval-{asked['deny']}"
        phone.type_into(f"{card} form.deny textarea", note)
        phone.click(f"{card} button.deny")
        for page in (phone, desktop):
            page.wait_gone(card)
        # Answered in a terminal: the card leaves both pages too.
        assert mytty(m, "approve", asked["elsewhere"]).returncode == 0
        for page in (phone, desktop):
            page.wait_gone(f"#approval-{asked['elsewhere']}")
        assert completed(m, allow, 30)["state"] == "succeeded" and made.exists()
        assert completed(m, deny, 30)["state"] == "succeeded" and not spared.exists()
        # Each stand-in got exactly that decision from its hook.
        replies = wait_until(lambda: permission_replies(m, "claude", pane_of(allow)), 10)
        assert replies == [decision("allow")]
        replies = wait_until(lambda: permission_replies(m, "codex", pane_of(deny)), 10)
        assert replies == [decision("deny", note)]
        # The audit: a person on the web, with the session each answer came from.
        log = mytty(m, "approvals", "log", "--json")
        entries = {e["id"]: e for e in json.loads(log.stdout)}
        phone_session, desktop_session = sessions_by_age(m)[:2]
        assert entries[asked["elsewhere"]]["decidedBy"] == "human:tty"
        for name, ident, session in (
            ("allow", asked["allow"], desktop_session),
            ("deny", asked["deny"], phone_session),
        ):
            entry = entries[ident]
            assert (entry["decidedBy"], entry["session"]) == ("human:web", session), entry
            assert entry["decision"] == name
        assert entries[asked["deny"]]["message"] == note
    finally:
        for job in (allow, deny, elsewhere):
            m.ctl("agent", "close", job_id(job))


def test_after_the_hold_an_approval_is_typed_into_the_agents_own_dialog(world: World) -> None:
    m, phone = world.m, world.phone
    set_approvals(m, hold=1, rules=[])
    made = m.home / "web_in_dialog"
    job = spawn(m, "--provider", "claude", "--label", "late", "--cwd", str(m.home),
                "--task", f"@standin: approve\n@standin: run touch {made}")  # fmt: skip
    try:
        ident = wait_for_request(m, pane_of(job), state="dialog")["id"]
        m.wait_for_text(pane_of(job), "Do you want to proceed?")
        card = f"#approval-{ident}"
        phone.wait_for(f"document.querySelector('{card} .hold')?.innerText.startsWith({IN_DIALOG})")
        phone.click(f"{card} button.approve")
        phone.wait_gone(card)
        assert completed(m, job, 30)["state"] == "succeeded" and made.exists()
        log = json.loads(mytty(m, "approvals", "log", "--json").stdout)
        entry = next(e for e in log if e["id"] == ident)
        assert (entry["decidedBy"], entry["deliveredBy"]) == ("human:web", "dialog"), entry
    finally:
        m.ctl("agent", "close", job_id(job))


def test_a_message_being_typed_survives_the_hold_and_a_refusal_is_said(world: World) -> None:
    """The person starts a deny message within the hold; the hold runs out (the card changes:
    it now says the agent asks in its own dialog) and the message is still there, still
    focused. After the hold Codex's dialog cannot carry a message: the broker refuses it, the
    card says why and stays, and a plain Deny then cancels the request."""
    m, phone = world.m, world.phone
    set_approvals(m, hold=6, rules=[])
    spared = m.home / "web_codex_late"
    job = spawn(m, "--provider", "codex", "--label", "late-codex", "--cwd", str(m.home),
                "--task", f"@standin: approve\n@standin: run touch {spared}")  # fmt: skip
    try:
        ident = wait_for_request(m, pane_of(job))["id"]
        card, field = f"#approval-{ident}", f"#approval-{ident} form.deny textarea"
        phone.wait_for(f"document.querySelector('{card} .hold')?.innerText.startsWith({HOLDING})")
        phone.type_into(field, "use the fixture")
        phone.wait_for(
            f"document.querySelector('{card} .hold')?.innerText.startsWith({IN_DIALOG})"
        )  # the hold ran out: the card was drawn anew
        assert phone.evaluate(f"document.querySelector('{field}').value") == "use the fixture"
        assert phone.evaluate(f"document.activeElement === document.querySelector('{field}')")
        m.wait_for_text(pane_of(job), "Would you like to run the following command?")
        phone.click(f"{card} button.deny")
        phone.wait_visible(f"{card} .error")
        assert "message" in (phone.text(f"{card} .error") or "")
        assert [e["id"] for e in json.loads(mytty(m, "approvals", "--json").stdout)] == [ident]
        shot(phone, "phone-refused")
        assert phone.visible(f"{card} .error")  # still said after the board was read again
        phone.evaluate(f"document.querySelector('{field}').value = ''")
        phone.click(f"{card} button.deny")
        phone.wait_gone(card)
        m.wait_for_text(pane_of(job), "You canceled the request to run")
        assert not spared.exists()
    finally:
        m.ctl("agent", "close", job_id(job))


HOSTILE = '<script>document.title="pwned"</script><img src=x onerror=document.title="img">'


def test_markup_from_an_agent_shows_as_text_and_none_of_it_runs(world: World) -> None:
    """The agent asks to run a command full of markup: the approval card and the job's screen
    (Claude's dialog shows the command) show it as written, and the page runs none of it."""
    m, phone = world.m, world.phone
    set_approvals(m, hold=120, rules=[])
    job = spawn(m, "--provider", "claude", "--label", "hostile", "--cwd", str(m.home),
                "--task", f"@standin: approve\n@standin: run echo '{HOSTILE}'")  # fmt: skip
    try:
        ident = wait_for_request(m, pane_of(job))["id"]
        card = f"#approval-{ident}"
        phone.wait_visible(card)
        assert HOSTILE in (phone.text(f"{card} pre.action") or "")
        m.wait_for_text(pane_of(job), "Do you want to proceed?")
        phone.goto(f"{world.served.base}/job/{job_id(job)}")
        phone.wait_for("document.querySelector('pre.screen')?.innerText.includes('<script>')")
        assert '<script>document.title="pwned"</script>' in (phone.text("pre.screen") or "")
        assert phone.evaluate("document.querySelectorAll('pre.screen *').length") == 0
        assert phone.evaluate("document.querySelectorAll('img').length") == 0
        assert phone.evaluate("document.title") not in ("pwned", "img")
        shot(phone, "phone-hostile-screen")
    finally:
        m.ctl("agent", "close", job_id(job))
        phone.goto(f"{world.served.base}/")
        phone.wait_visible("main .board")
    assert phone.evaluate("document.querySelectorAll('img').length") == 0


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
        waiting = agent_wait(m, job, "attention", 30)["job"]
        assert waiting["state"] == "waiting-input"
        run = (
            waiting["runID"]["rawValue"] if isinstance(waiting["runID"], dict) else waiting["runID"]
        )
        card = f"#question-{run}"
        phone.wait_visible(card)
        assert "asker" in (phone.text(card) or "")
        phone.wait_for(
            f"document.querySelector('#agent-{pane_of(job)} .need')?.innerText.includes('input')"
        )
        shot(phone, "phone-question")
        phone.type_into(f"{card} textarea", "Option B, from the phone")
        phone.click(f"{card} button.send")
        phone.wait_gone(card)
        session = agent_wait(m, job, "running", 5)["job"]["sessionID"]
        seen = wait_until(lambda: answers_seen(m, session), 15, message="the answer")
        assert seen == [{"Which option should I take?": "Option B, from the phone"}]
        done = completed(m, job)
        assert done["state"] == "succeeded"
        world.desktop.wait_gone(card)  # answered on the phone: gone on the desktop too
        # Its detail: the last answer as `agent result` has it, and the run it answered in.
        answer = m.ctl("agent", "result", job_id(job)).json["lastAssistantMessage"]
        assert answer
        phone.goto(f"{world.served.base}/job/{job_id(job)}")
        phone.wait_for(f"document.querySelector('pre.result')?.innerText === {json.dumps(answer)}")
        runs = phone.text("#runs") or ""
        assert f"run {run[:8]}" in runs and "succeeded" in runs, runs
        shot(phone, "phone-job-result")
        phone.goto(f"{world.served.base}/")
        phone.wait_visible("main .board")
    finally:
        m.ctl("agent", "close", job_id(job))


@pytest.mark.alone  # a deadline of 1 s: measured with the machine to itself, not the suite's load
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
            page.wait_visible(f"#agent-{pane}.state-succeeded")
        m.ctl("agent", "send", job_id(job), "@standin: sleep 5", "--enter").ok()
        assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
        # The controller has it now: each open page shows it within the deadline.
        for page in pages:
            page.wait_visible(f"#agent-{pane}.state-running", LIVE_DEADLINE_S)
        assert [p.evaluate("performance.timeOrigin") for p in pages] == loaded  # no reload
    finally:
        m.ctl("agent", "close", job_id(job))


def test_the_page_says_disconnected_while_the_server_is_gone(world: World) -> None:
    phone, port = world.phone, world.served.port
    assert not phone.visible("#connection")
    world.served.stop()
    phone.wait_for(
        "document.querySelector('#connection')?.innerText.includes('Disconnected, retrying')"
    )
    assert phone.visible("#connection")
    shot(phone, "phone-disconnected")
    world.served = Served(world.m.env, listen=f"127.0.0.1:{port}")
    phone.wait_gone("#connection", 15)  # back, with the same session
    phone.wait_visible("main .board .summary")
