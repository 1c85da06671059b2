"""Pane-team pointers: short texts that tell Claude Code and Codex where mytty's guide is.

They never copy the guide; they name the guide file the controller keeps current
(``$MYTTY_HOME/mytty-ctl.md``) and ``mytty-ctl guide``, so the guide has one source.

* Claude Code: the skill ``~/.claude/skills/mytty-panes/SKILL.md`` (the whole file is ours).
* Codex: a block in ``$CODEX_HOME/AGENTS.md`` between two marker lines; everything outside the
  markers is the user's. The append and cut rules below are exact inverses, so disable restores
  the file byte for byte (a file left empty is deleted).
"""

from __future__ import annotations

from pathlib import Path

from mytty.core.vocab import INSTALLED, NEEDS_REPAIR, NOT_INSTALLED
from mytty.integrations.common import (
    PRIVATE_MODE,
    SHARED_MODE,
    FileChange,
    Status,
    invalid_configuration,
    planned_delete,
    planned_emptying,
    planned_write,
    read_bytes,
    read_text,
)

BEGIN_MARKER = "<!-- mytty:pane-team:begin -->"
END_MARKER = "<!-- mytty:pane-team:end -->"


def skill_text(guide: Path) -> str:
    """The whole ``SKILL.md`` for Claude Code."""
    return (
        "---\n"
        "name: mytty-panes\n"
        "description: Coordinate several AI agents in tmux panes with mytty-ctl. Use when the "
        'user says "with mytty", "use mytty", "split the pane and work in parallel", "have '
        'another AI review this", "mytty で", "ペインを分けて並行で", "別の AI にレビューして'
        'もらって", or otherwise asks to hand work to agents running beside this one.\n'
        "---\n"
        "\n"
        "# Working with mytty panes\n"
        "\n"
        "mytty runs coding agents in tmux panes and lets one agent start, message, watch and\n"
        "read the others through `mytty-ctl`. It only works inside a mytty pane (the environment\n"
        "then has `MYTTY_CONTROL_SOCKET`).\n"
        "\n"
        "Before using it, read the guide. It is kept current in this file:\n"
        "\n"
        f"    {guide}\n"
        "\n"
        'and the same text is printed by `mytty-ctl guide` (or `"$MYTTY_CTL_BIN" guide` when\n'
        "`mytty-ctl` is not on PATH). Follow the guide rather than guessing command names: every\n"
        "`mytty-ctl` command prints one JSON line, and failures print\n"
        "`mytty-ctl: <code>: <message>` on stderr and exit 1.\n"
    )


def agents_block(guide: Path) -> str:
    """The marked block for Codex's ``AGENTS.md`` (markers included, no trailing newline)."""
    return (
        f"{BEGIN_MARKER}\n"
        "## mytty panes\n"
        "\n"
        "When the environment has `MYTTY_CONTROL_SOCKET`, this session runs in a mytty tmux pane\n"
        "and can start, message, watch and read other agents in sibling panes with `mytty-ctl`.\n"
        f"Before doing that, read the guide at `{guide}` (the same text is printed by\n"
        '`mytty-ctl guide`, or `"$MYTTY_CTL_BIN" guide`). Run `mytty-ctl` with escalated\n'
        "permissions, outside the sandbox: the sandbox blocks its connection to mytty's Unix\n"
        "socket.\n"
        f"{END_MARKER}"
    )


# -- Claude skill ----------------------------------------------------------------------------


def skill_status(path: Path, guide: Path) -> Status:
    """``installed`` when the skill holds exactly our text (else needs-repair/not-installed)."""
    current = read_bytes(path)
    if current is None:
        return NOT_INSTALLED
    return INSTALLED if current == skill_text(guide).encode("utf-8") else NEEDS_REPAIR


def plan_skill_install(path: Path, guide: Path) -> list[FileChange]:
    return planned_write(path, skill_text(guide).encode("utf-8"), PRIVATE_MODE)


def plan_skill_remove(path: Path) -> list[FileChange]:
    # The folder goes too when nothing of the user's is left in it.
    return planned_delete(path, prune_dir=True)


# -- Codex AGENTS.md block ---------------------------------------------------------------------


def _block_range(text: str) -> tuple[int, int] | None:
    """``[start, end)`` of the first begin marker through the first end marker after it."""
    start = text.find(BEGIN_MARKER)
    if start < 0:
        return None
    end = text.find(END_MARKER, start + len(BEGIN_MARKER))
    if end < 0:
        return None
    return start, end + len(END_MARKER)


def with_block(text: str, block: str) -> str:
    """``text`` with the block replaced in place, or appended after one blank line.

    A file that does not end with a newline gets the block without one, which keeps the append
    reversible: ``without_block`` then cuts the two newlines it added.
    """
    found = _block_range(text)
    if found:
        return text[: found[0]] + block + text[found[1] :]
    if not text:
        return block + "\n"
    if text.endswith("\n"):
        return text + "\n" + block + "\n"
    return text + "\n\n" + block


def without_block(text: str) -> str:
    """``text`` with the block cut out, undoing exactly what ``with_block`` appended."""
    found = _block_range(text)
    if not found:
        return text
    start, end = found
    before, after = text[:start], text[end:]
    if after == "\n":
        return before[:-1] if before.endswith("\n") else before
    if after == "":
        for separator in ("\n\n", "\n"):
            if before.endswith(separator):
                return before[: -len(separator)]
        return before
    # The user moved the block into the middle: take it and its own line break only.
    return before + (after[1:] if after.startswith("\n") else after)


def _agents_text(path: Path) -> str | None:
    text = read_text(path)
    if text is not None and "\x00" in text:
        raise invalid_configuration(path, "looks like a binary file")
    return text


def agents_status(path: Path, guide: Path) -> Status:
    text = _agents_text(path)
    found = _block_range(text) if text is not None else None
    if text is None or found is None:
        return NOT_INSTALLED
    return INSTALLED if text[found[0] : found[1]] == agents_block(guide) else NEEDS_REPAIR


def plan_agents_install(path: Path, guide: Path) -> list[FileChange]:
    text = _agents_text(path) or ""
    return planned_write(path, with_block(text, agents_block(guide)).encode("utf-8"), SHARED_MODE)


def plan_agents_remove(path: Path) -> list[FileChange]:
    text = _agents_text(path)
    if text is None or _block_range(text) is None:
        return []
    remaining = without_block(text)
    if not remaining:
        return planned_emptying(path, b"", SHARED_MODE)
    return planned_write(path, remaining.encode("utf-8"), SHARED_MODE)
