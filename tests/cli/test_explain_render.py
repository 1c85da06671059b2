"""How `mytty explain` prints an explanation: short blocks, no line over 80 columns."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.cli.explain.render import lines
from mytty.core.estimation import epochs
from mytty.core.events import AgentEventKind, WorkerProvider
from mytty.core.explain.build import explain
from mytty.core.explain.inputs import EpochView, Foreground, Observations, ShellView
from mytty.core.ids import JobId
from mytty.core.jobs.tracker import new_job, reconcile
from mytty.core.runs.book import RunBook
from mytty.protocol import wire
from tests.core.builders import CLAUDE, PANE, R, ev
from tests.core.explain.support import NOW, inputs_for

K = AgentEventKind
TURN = R("turn")


def reply_for(message: str = "m", hook: str = "Stop", path: str = "/w/t.jsonl") -> dict[str, Any]:
    events = [
        ev(K.STARTED, run=TURN, hook="UserPromptSubmit", at=NOW - 9),
        ev(K.RUNNING, run=TURN, hook=hook, tool="Bash", message=message, at=NOW - 8),
        ev(K.STARTED, run=R("other"), hook=epochs.LAUNCH_OBSERVED, at=NOW - 7),
    ]
    book = RunBook()
    for e in events:
        book.apply(e)
    job = new_job(
        JobId("04AA9DA1-0000-4000-8000-000000000000"),
        PANE,
        WorkerProvider.CLAUDE,
        "scan-a",
        [],
        0.0,
    )
    job = reconcile(job, book.runs_for(PANE, CLAUDE), True, NOW)
    seen = Observations(
        pane_alive=True,
        foreground=Foreground(None),
        epoch=EpochView(CLAUDE, 7, "started", True, True, "a" * 60, R("other")),
        shell=ShellView(137, NOW - 5, 3),
    )
    inputs = inputs_for(events, job=job, observations=seen, integrations={CLAUDE: "installed"})
    explanation = explain(replace(inputs, now=NOW))
    obj = wire.explanation_reply(explanation, wire.job_snapshot(job))
    decoded: dict[str, Any] = json.loads(json.dumps(obj))
    return decoded


def test_the_blocks_of_an_explanation() -> None:
    out = [text for text, _style in lines(reply_for())]
    assert out[0].startswith("job 04AA9DA1 (scan-a, claude) in pane ") and out[0].endswith(
        ": running"
    )
    joined = "\n".join(out)
    for heading in ("evidence, oldest first", "observed now:", "what would change it next:"):
        assert heading in joined
    assert "hook UserPromptSubmit: unknown → running" in joined
    assert "hook Stop (Bash)" in joined
    assert "foreground: the pane's shell, at its prompt" in joined
    assert "shell: last command exited 137" in joined
    assert "→ succeeded: the Stop hook" in joined
    assert "! agent-gone:" in joined  # the run is running and its shell is back in front


def test_more_evidence_than_shown_says_so() -> None:
    reply = reply_for()
    reply["evidence"] = reply["evidence"] * 10
    out = [text for text, _ in lines(reply)]
    assert any("earlier (see --json)" in line for line in out)


@settings(max_examples=60)
@given(
    st.text(min_size=0, max_size=300),
    st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=120),
    st.integers(40, 120),
)
def test_no_line_is_wider_than_the_terminal(message: str, hook: str, width: int) -> None:
    for text, _style in lines(reply_for(message, hook), width):
        assert len(text) <= width, (width, text)


def test_long_messages_are_clipped_on_the_wire() -> None:
    from mytty.protocol.wire import EXPLAIN_MESSAGE_CHARS

    reply = reply_for(message="x" * 60_000)
    clipped = [e["message"] for e in reply["evidence"] if "message" in e]
    assert clipped and all(len(m) == EXPLAIN_MESSAGE_CHARS and m.endswith("…") for m in clipped)
    assert len(json.dumps(reply)) < 20_000
