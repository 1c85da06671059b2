"""The publisher's rules (values, counts, diffs) against the in-memory tmux (FakeTmux)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from mytty.core.attention.items import AttentionBook, AttentionItem, AttentionKind
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, TmuxPaneId
from mytty.core.runs.book import RunBook
from mytty.core.runs.notes import StatusNotes
from mytty.daemon import tmux_publish as tp
from mytty.daemon.panes.identity import PaneRegistry
from mytty.tmux.fake import FakeTmux
from mytty.tmux.port import OptionScope, OptionUpdate

K = AgentEventKind


class Books:
    """The parts of AgentHub the publisher reads, with the real pure books."""

    def __init__(self) -> None:
        self.book = RunBook()
        self.attention = AttentionBook()
        self.notes = StatusNotes()
        self.version = 0

    def now(self) -> float:
        return time.time()

    def apply(self, surface: str, kind: AgentEventKind, run: str, **fields: Any) -> None:
        event = AgentEvent(
            id=str(uuid.uuid4()).upper(),
            run_id=RunId(run),
            surface_id=SurfaceId(surface),
            provider=AgentProvider.CODEX,
            kind=kind,
            occurred_at=time.time(),
            **fields,
        )
        result = self.book.apply(event)
        self.attention.observe(event, result)
        self.version += 1


def surface() -> str:
    return str(uuid.uuid4()).upper()


async def setup() -> tuple[FakeTmux, PaneRegistry, Books, tp.TmuxPublisher]:
    fake = FakeTmux("_mytty")
    fake.add_session("work", command="exec sleep 1")
    fake.add_session("other", command="exec sleep 1")
    panes = PaneRegistry(b"k" * 32)
    panes.reconcile(await fake.list_panes())
    books = Books()
    publisher = tp.TmuxPublisher(
        hub=books,  # type: ignore[arg-type]
        panes=panes,
        jobs_by_pane=dict,
        port=lambda: fake,
    )
    return fake, panes, books, publisher


def pane_in(panes: PaneRegistry, session: str) -> tuple[str, TmuxPaneId]:
    pane = next(p for p in panes.panes() if p.row is not None and p.row.session_name == session)
    return pane.surface_id, pane.tmux_id


def test_values_counts_and_only_changes_are_written() -> None:
    async def main() -> None:
        fake, panes, books, publisher = await setup()
        work, work_tmux = pane_in(panes, "work")
        _other, other_tmux = pane_in(panes, "other")
        # Values an earlier controller left behind are cleared on the first flush.
        fake.pane(other_tmux).options["@mytty_state"] = "running"
        # Nothing known yet: only the counts (and, once, an unset of every pane option).
        assert await publisher.flush() == 3 + 2 * len(tp.PANE_OPTIONS)
        assert "@mytty_state" not in fake.pane(other_tmux).options
        assert fake.pane(work_tmux).options == {}
        assert fake.global_options == {"@mytty_attention_total": "0"}

        run = str(uuid.uuid4()).upper()
        books.apply(work, K.STARTED, run)
        books.apply(work, K.APPROVAL_REQUESTED, run, message="may I?")
        sent = await publisher.flush()
        options = fake.pane(work_tmux).options
        assert options["@mytty_state"] == "waiting-approval"
        assert options["@mytty_provider"] == "codex"
        assert options["@mytty_attention"] == "approval"
        assert options["@mytty_job"] == options["@mytty_note"] == ""
        assert options["@mytty_since"].isdigit()
        assert fake.sessions[1].options["@mytty_attention_count"] == "1"  # work
        assert fake.sessions[2].options["@mytty_attention_count"] == "0"  # other
        assert fake.global_options["@mytty_attention_total"] == "1"
        assert "@mytty_state" not in fake.pane(other_tmux).options
        assert sent == len(tp.PANE_OPTIONS) + 2  # the pane's options, its count, the total

        # Unchanged values are not written again.
        assert await publisher.flush() == 0
        books.notes.set(SurfaceId(work), "halfway")
        assert await publisher.flush() == 1
        assert fake.pane(work_tmux).options["@mytty_note"] == "halfway"

        # The item is answered: the need and the counts go back, the note stays.
        books.apply(work, K.RUNNING, run)
        await publisher.flush()
        assert fake.pane(work_tmux).options["@mytty_attention"] == ""
        assert fake.global_options["@mytty_attention_total"] == "0"

        # Shutdown removes every option the publisher set (and nothing else), also what a
        # batch cut off by the shutdown wrote without recording it.
        fake.pane(other_tmux).options["@mytty_note"] = "written by a cancelled batch"
        fake.pane(other_tmux).options["@user_own"] = "kept"
        await publisher.clear()
        assert fake.pane(other_tmux).options == {"@user_own": "kept"}
        assert fake.pane(work_tmux).options == {}
        assert fake.global_options == {}
        assert "@mytty_attention_count" not in fake.sessions[1].options

    asyncio.run(main())


def test_a_new_connection_gets_everything_again() -> None:
    async def main() -> None:
        _fake, panes, books, publisher = await setup()
        work, work_tmux = pane_in(panes, "work")
        books.apply(work, K.STARTED, str(uuid.uuid4()).upper())
        await publisher.flush()
        fresh = FakeTmux("_mytty")
        fresh.add_session("work", command="exec sleep 1")
        fresh.add_session("other", command="exec sleep 1")
        publisher._port = lambda: fresh
        assert await publisher.flush() > 0
        assert fresh.pane(work_tmux).options["@mytty_state"] == "running"

    asyncio.run(main())


def test_the_most_urgent_need_is_named() -> None:
    facts = tp.PaneFacts(SurfaceId(surface()), "%1", "s", None, None, None)
    assert tp.pane_values(facts, []) is None  # no agent state: no options at all

    def item(kind: AttentionKind, at: float) -> AttentionItem:
        run = RunId(surface())
        return AttentionItem(surface(), facts.surface_id, run, AgentProvider.CODEX, kind, None, at)

    newer_failure = item(AttentionKind.FAILURE, 20.0)
    values = tp.pane_values(facts, [item(AttentionKind.APPROVAL_REQUEST, 10.0), newer_failure])
    assert values is not None and values[tp.ATTENTION] == "approval"
    values = tp.pane_values(facts, [item(AttentionKind.COMPLETION, 30.0), newer_failure])
    assert values is not None and values[tp.ATTENTION] == "failure"
    assert values[tp.STATE] == values[tp.PROVIDER] == ""


def test_diff_unsets_what_is_no_longer_wanted_except_on_gone_panes() -> None:
    P, S = OptionScope.PANE, OptionScope.SESSION
    published = {(P, "%1", "@mytty_state"): "running", (P, "%2", "@mytty_state"): "idle"}
    published[(S, "s", "@mytty_attention_count")] = "1"
    wanted = {(S, "s", "@mytty_attention_count"): "1"}
    assert tp.diff(published, wanted, live_panes={"%1"}) == [
        OptionUpdate(P, "%1", "@mytty_state", None)
    ]


def test_labels_and_notes_become_one_printable_line() -> None:
    assert tp._clean("a\nb\tc\x1b") == "a b c "
    assert tp._clean(None) == ""


def test_every_attention_kind_has_a_rank() -> None:
    kinds = {kind.value for kind in AttentionKind}
    assert {kind.value for kind in tp._URGENCY} == kinds


def test_a_jobs_tokens_are_published_and_empty_until_known() -> None:
    facts = tp.PaneFacts(SurfaceId(surface()), "%1", "s", None, None, "a note", tokens=12_345)
    values = tp.pane_values(facts, [])
    assert values is not None and values[tp.TOKENS] == "12345"
    unknown = tp.PaneFacts(SurfaceId(surface()), "%2", "s", None, None, "a note")
    assert (tp.pane_values(unknown, []) or {})[tp.TOKENS] == ""
