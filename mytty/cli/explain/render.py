"""How ``mytty explain`` prints an explanation: short blocks, never wider than the terminal.

:func:`lines` turns the controller's ``explanation`` reply into (text, rich style) lines: the
state and where it comes from, the newest evidence with its source and effect, what is
observed now, what would change the state next (one line per state), and warnings.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Mapping
from typing import Any

from mytty.core.events import parse_timestamp

WIDTH = 80
#: Evidence lines shown (the newest); ``--json`` has them all.
SHOWN_EVIDENCE = 12
_STATE_STYLES = {
    "running": "green",
    "waiting-approval": "bold yellow",
    "waiting-input": "bold yellow",
    "launching": "cyan",
    "failed": "bold red",
    "launch-failed": "bold red",
    "disconnected": "magenta",
    "lost": "magenta",
    "succeeded": "blue",
}
_NATIVE = "mytty.native."

Line = tuple[str, str]  # (text, rich style)


def lines(reply: Mapping[str, Any], width: int = WIDTH) -> list[Line]:
    """The explanation as (text, style) lines, none wider than ``width``."""
    out: list[Line] = []
    out += _head(reply, width)
    out += _evidence(reply, width)
    out += _observed(reply, width)
    out += _next(reply, width)
    out += _warnings(reply, width)
    return out


def _wrap(
    text: str, width: int, indent: str, style: str = "", first: str | None = None
) -> list[Line]:
    head = indent if first is None else first
    wrapped = textwrap.wrap(
        text,
        width,
        initial_indent=head,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=True,
    )
    return [(line, style) for line in wrapped]


def _heading(text: str, width: int, style: str = "bold") -> list[Line]:
    """A block's heading after a blank line."""
    return [("", ""), *_wrap(text, width, "  ", style, "")]


def _head(reply: Mapping[str, Any], width: int) -> list[Line]:
    state = reply.get("state") or "no run"
    pane = str(reply["paneID"])[:8]
    job = reply.get("job")
    if reply["target"] == "job" and job is not None:
        label = f"{job['label']}, " if job.get("label") else ""
        title = f"job {job['jobID']['rawValue'][:8]} ({label}{job['provider']}) in pane {pane}"
    else:
        title = f"pane {pane}"
        if job is not None:
            title += f" (job {job['jobID']['rawValue'][:8]})"
    out = _wrap(f"{title}: {state}", width, "  ", f"bold {_STATE_STYLES.get(state, '')}", "")
    return out + _wrap(str(reply["summary"]), width, "  ")


def _clock(stamp: str | None) -> str:
    if not stamp:
        return "--:--:--"
    try:
        return time.strftime("%H:%M:%S", time.localtime(parse_timestamp(stamp)))
    except ValueError:
        return stamp[11:19]


def _source(item: Mapping[str, Any]) -> str:
    name = item.get("hookName")
    if item["source"] == "hook":
        tool = f" ({item['toolName']})" if item.get("toolName") else ""
        return f"hook {name or '(unnamed)'}{tool}"
    if item["source"] == "native" and isinstance(name, str) and name.startswith(_NATIVE):
        return f"native {name[len(_NATIVE) :]}"
    return str(item["source"])


def _evidence(reply: Mapping[str, Any], width: int) -> list[Line]:
    items = list(reply.get("evidence") or [])
    if not items:
        return _heading("evidence: no stored event for these runs", width)
    out = _heading("evidence, oldest first (* on the run shown):", width)
    if len(items) > SHOWN_EVIDENCE:
        out += _wrap(f"… {len(items) - SHOWN_EVIDENCE} earlier (see --json)", width, "  ", "dim")
    for item in items[-SHOWN_EVIDENCE:]:
        mark = "*" if item["shownRun"] else " "
        head = f"  {_clock(item['occurredAt'])} {mark} {item['kind']:<18} {_source(item)}"
        effect = item.get("effect")
        out += _wrap(head if not effect else f"{head}: {effect}", width, " " * 13, first="")
        if item["source"] != "hook":
            out += _wrap(str(item["what"]), width, " " * 13, "dim")
    return out


def _observed(reply: Mapping[str, Any], width: int) -> list[Line]:
    seen = reply["observed"]
    facts: list[str] = []
    if not seen["paneAlive"]:
        facts.append("the pane is gone")
    fg = seen.get("foreground")
    if fg is not None:
        if fg["pid"] is None:
            facts.append("foreground: the pane's shell, at its prompt")
        else:
            agent = ""
            if fg.get("agent"):
                below = "" if fg["agentPID"] == fg["pid"] else f" pid {fg['agentPID']} below it"
                agent = f": the {fg['agent']} agent{below}"
            facts.append(f"foreground: {fg['command'] or '?'} pid {fg['pid']}{agent}")
    epoch = seen.get("epoch")
    if epoch is not None:
        mode = "per turn" if epoch["turnMode"] else "per process"
        quiet = ", silent: hooks reported" if epoch["hookCovered"] else ""
        facts.append(f"native estimation: {epoch['phase']} ({mode}){quiet}")
    shell = seen.get("shell")
    if shell is not None and shell["lastExitStatus"] is not None:
        when = _clock(shell["lastExitAt"])
        facts.append(f"shell: last command exited {shell['lastExitStatus']} at {when}")
    transcript = seen.get("transcript")
    if transcript is not None and transcript.get("turn"):
        facts.append(f"transcript: turn {transcript['turn']} {transcript['phase']}")
    hooks = ", ".join(f"{p} {s}" for p, s in seen.get("integrations", {}).items())
    if hooks:
        facts.append(f"hooks: {hooks}")
    if seen.get("unplacedCodexEvents"):
        facts.append(f"codex events placed on no pane: {seen['unplacedCodexEvents']}")
    out = _heading("observed now:", width)
    for fact in facts:
        out += _wrap(fact, width, "    ", "", "  ")
    return out


def _next(reply: Mapping[str, Any], width: int) -> list[Line]:
    steps = list(reply.get("next") or [])
    out = _heading("what would change it next:", width)
    if not steps:
        return [*out, *_wrap("nothing: the state is final", width, "  ", "dim")]
    merged: dict[str, list[str]] = {}
    for step in steps:  # one line per state: an idle run and a disconnected one end a job alike
        merged.setdefault(step["state"], []).extend(step["by"])
    for state, by in merged.items():
        text = f"→ {state}: {'; '.join(dict.fromkeys(by))}"
        out += _wrap(text, width, "    ", "", "  ")
    return out


def _warnings(reply: Mapping[str, Any], width: int) -> list[Line]:
    found = list(reply.get("warnings") or [])
    if not found:
        return []
    out = _heading("looks wrong:", width, "bold red")
    for warning in found:
        text = f"! {warning['code']}: {warning['message']}"
        out += _wrap(text, width, "    ", "yellow", "  ")
    return out
