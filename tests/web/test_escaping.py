"""Every text an agent writes reaches the page as text: HTML, terminal escapes and bidi
controls in pane text, labels, notes, messages, commands, paths and session names are shown,
never interpreted."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from mytty.web import board as board_mod
from mytty.web.control import Place, Snapshot
from mytty.web.detail import Detail, RunView, Step, detail_fragment
from mytty.web.html import esc, page, shown
from mytty.web.render import board_fragment
from tests.web.conftest import JOB_A, PANE_A, RUN_A, START, WebHarness, job, pane

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&\x1b]52;c;cHdu\x07\u202eevil"


class Elements(HTMLParser):
    """The tags and attributes a fragment really has."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(fragment: str) -> Elements:
    found = Elements()
    found.feed(fragment)
    found.close()
    return found


def hostile_snapshot(text: str) -> Snapshot:
    return Snapshot(
        panes=[pane(PANE_A, provider="claude-code", agentState="waiting-input", statusNote=text,
                    command=text)],
        jobs=[job(JOB_A, PANE_A, "waiting-input", label=text, message=text,
                  runID={"rawValue": RUN_A})],
        attention=[{"paneID": PANE_A, "runID": RUN_A, "provider": "claude-code",
                    "kind": "input-request", "message": text, "createdAt": "2027-01-15T08:00:00Z",
                    "resolvedAt": None, "location": text, "label": text}],
        approvals=[{"id": "0123abcd", "paneID": PANE_A, "provider": text, "tool": text,
                    "action": text, "command": text, "paths": [text], "diff": text,
                    "description": text, "cwd": text, "label": text, "location": text,
                    "state": "holding", "requestedAt": "2027-01-15T08:00:00Z",
                    "holdUntil": "2027-01-15T08:00:15Z"}],
        places={PANE_A: Place(f"{text}:1.0", text, START)},
    )  # fmt: skip


def test_hostile_text_everywhere_on_the_board_stays_text() -> None:
    fragment = board_fragment(board_mod.build(hostile_snapshot(HOSTILE)), START)
    found = parsed(fragment)
    assert "script" not in found.tags and "img" not in found.tags
    assert not [a for a in found.attributes if a.startswith("on")]
    text = "".join(found.text)
    assert "<script>alert(1)</script>" in text  # shown as it was written
    assert "\x1b" not in fragment and "\\x1b]52;c;cHdu\\x07" in text
    assert "\u202e" not in fragment and "\\u202eevil" in text


def test_the_detail_screen_shows_markup_as_text() -> None:
    detail = Detail(
        board_mod.agent_of(pane(PANE_A, statusNote=HOSTILE), None, None),
        HOSTILE,
        f"$ cat page.html\n{HOSTILE}\n\x1b[2J\x1b[31mred",
        HOSTILE,
        (
            RunView(
                RUN_A, HOSTILE, None, (Step("2027-01-15T08:00:00Z", HOSTILE, HOSTILE, HOSTILE),)
            ),
        ),
    )
    fragment = detail_fragment(detail, START)
    found = parsed(fragment)
    assert "script" not in found.tags and "img" not in found.tags
    assert "\x1b" not in fragment and "\\x1b[2J\\x1b[31mred" in "".join(found.text)


@given(st.text())
def test_escaped_text_never_opens_markup(text: str) -> None:
    out = esc(text)
    assert not set(out) & set("<>\"'")
    assert "\x1b" not in out and "\x9b" not in out
    parser = parsed(f"<p>{out}</p>")
    assert parser.tags == ["p"]
    assert "".join(parser.text) == shown(text)


def test_the_page_shell_has_no_inline_script_or_style() -> None:
    found = parsed(page("t", "<p>x</p>", csrf="c", view="home"))
    assert found.tags.count("script") == 1  # /static/app.js, nothing inline
    assert "style" not in found.tags and "style" not in found.attributes


def test_a_pane_printing_script_is_inert_on_the_served_page(harness: WebHarness) -> None:
    harness.controller.panes = [pane(PANE_A, provider="claude-code", agentState="running")]
    harness.controller.jobs = [job(JOB_A, PANE_A, "running", label="<b>bold</b>")]
    harness.controller.screens[PANE_A] = "<script>document.title='pwned'</script>"

    async def body(h: WebHarness) -> None:
        await h.pair()
        for path in ("/", f"/job/{JOB_A}", f"/pane/{PANE_A}"):
            text = await (await h.http.get(path)).text()
            found = parsed(text)
            assert found.tags.count("script") == 1, path  # only the page's own
            assert "b" not in found.tags, path
        text = await (await h.http.get(f"/job/{JOB_A}")).text()
        assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in text

    harness.run(body)
