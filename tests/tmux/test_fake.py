"""What FakeTmux offers tests beyond the port contract (the contract itself: test_port_conformance)."""

from __future__ import annotations

import asyncio

import pytest

from mytty.tmux.fake import FakeTmux
from mytty.tmux.port import TmuxPort


def test_the_fake_keeps_every_key_it_was_sent_in_order() -> None:
    async def scenario() -> None:
        fake = FakeTmux()
        port: TmuxPort = fake
        pane = (await port.list_panes())[0].pane_id
        await port.send_text(pane, "ab\nc\x03")
        await port.send_key(pane, "C-c")
        assert fake.pane(pane).sent == [
            ("text", "ab"),
            ("key", "Enter"),
            ("text", "c\x03"),
            ("key", "C-c"),
        ]
        # Control characters are kept in the log but not drawn.
        assert (await port.capture(pane)).text == "ab\nc"

    asyncio.run(scenario())


def test_the_most_recently_attached_human_comes_first() -> None:
    async def scenario() -> None:
        fake = FakeTmux()
        fake.add_session("a")
        fake.add_session("b")
        first = fake.attach_human("a")
        second = fake.attach_human("b")
        assert [c.name for c in await fake.human_clients()] == [second, first]

    asyncio.run(scenario())


def test_pane_lookup_of_an_unknown_id_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        FakeTmux().pane("%999")
