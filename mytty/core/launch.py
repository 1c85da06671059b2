"""Launch plans for worker agents: argv, permission flags, and the typed launch line.

``agent spawn`` starts a worker as one shell input line in a fresh pane::

    <HISTFILE_GUARD>command <binary> [<model flag> <model>] <mode flags> -- '<task + contract>'

The argv is built separately (:func:`build_launch_argv`) from the line that is typed
(:func:`launch_line`), so the controller may also start the agent without typing anything.

Access modes map to fixed flags per provider (:data:`ACCESS_FLAGS`). ``inherit`` instead copies
the permission flags the lead agent was started with (:func:`scan_inherited_flags`), falling back
to the mode the lead stored locally and finally to the workspace-write flags
(:func:`inherit_mode_flags`).

Everything here is pure: the caller reads processes and transcripts (see ``mytty.daemon.inherit``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.quoting import shell_line
from mytty.core.validation import MAX_FIELD_SCALARS, is_control_char, is_space_char

Access = Literal["review", "workspace-write"]
ResolvedAccess = Literal["inherit", "review", "workspace-write"]
SplitDirection = Literal["left", "right", "up", "down"]

# --------------------------------------------------------------------------------------------
# The typed line
# --------------------------------------------------------------------------------------------

#: Prepended to every typed launch line and to ``new-tab``/``split --command`` text (not to
#: ``send``). The leading space keeps the line out of history under ``hist_ignore_space``;
#: unsetting HISTFILE stops the pane's shell from saving history on exit; zsh's ``fc -p`` starts
#: a fresh in-memory history so this very line can't be recalled; ``builtin`` dodges user
#: functions of the same name, and ``2>/dev/null`` hides the errors fish (no ``unset``) and bash
#: (no ``fc -p``) print. Interface constant: do not reword.
HISTFILE_GUARD = " builtin unset HISTFILE 2>/dev/null; builtin fc -p 2>/dev/null; "


def launch_line(argv: Sequence[str]) -> str:
    """The line typed into the new pane: guard, ``command`` (skips aliases/functions), argv, Enter.

    The quoting is exact for the shell's parser, and the line keeps the task's characters
    literally (newlines included, which the shell reads as continuation lines inside the quotes).
    Deliver it as a bracketed paste or as the pane's initial input: sent as individual
    keystrokes, a line editor would act on tabs and control characters before parsing.
    """
    if not argv:
        raise ValueError("argv is empty")
    return HISTFILE_GUARD + "command " + shell_line(argv) + "\n"


def initial_input(command_text: str) -> str:
    """The one-shot input of ``new-tab``/``split --command``: the guard, the text, one newline."""
    return HISTFILE_GUARD + command_text + "\n"


# --------------------------------------------------------------------------------------------
# The worker contract
# --------------------------------------------------------------------------------------------

_CONTRACT_LINES: tuple[str, ...] = (
    "Ground rules for this run (you were started by mytty as a worker):",
    "- Work inside the current working directory unless the task above says otherwise.",
    "- Keep going until the task is finished; after changes, run the tests that cover them.",
    (
        "- Do not start hidden or built-in sub-agents: you are a worker that another pane is "
        "driving. Opening a sibling pane with `mytty-ctl split` to exercise a TUI program is fine."
    ),
    "- Settle routine implementation questions yourself, note what you decided, and continue.",
    '- At the start of each new phase, report it with `mytty-ctl status "<a few words>"`.',
    (
        "- End with a summary short enough to read on screen: what you found or which files "
        "you changed, the tests you ran and their results, and anything still open."
    ),
)


def worker_contract() -> str:
    """The standing instructions appended to every spawned task (heading + six rules)."""
    return "\n".join(_CONTRACT_LINES)


def task_with_contract(task: str) -> str:
    """The task followed by the worker contract, with no trailing newline."""
    return task + "\n" + worker_contract()


# --------------------------------------------------------------------------------------------
# Flags and argv
# --------------------------------------------------------------------------------------------

BINARIES: dict[WorkerProvider, str] = {
    WorkerProvider.CODEX: "codex",
    WorkerProvider.CLAUDE: "claude",
    WorkerProvider.CURSOR: "cursor-agent",
}

MODEL_FLAGS: dict[WorkerProvider, str] = {
    WorkerProvider.CODEX: "-m",
    WorkerProvider.CLAUDE: "--model",
    WorkerProvider.CURSOR: "--model",
}

ACCESS_FLAGS: dict[tuple[WorkerProvider, Access], tuple[str, ...]] = {
    (WorkerProvider.CODEX, "review"): ("-s", "read-only", "-a", "never"),
    (WorkerProvider.CODEX, "workspace-write"): ("-s", "workspace-write", "-a", "never"),
    (WorkerProvider.CLAUDE, "review"): ("--permission-mode", "plan"),
    (WorkerProvider.CLAUDE, "workspace-write"): ("--permission-mode", "acceptEdits"),
    (WorkerProvider.CURSOR, "review"): ("--mode", "plan"),
    (WorkerProvider.CURSOR, "workspace-write"): ("--force", "--sandbox", "enabled"),
}

#: Always given to Claude workers, after the mode flags. Inside tmux, Claude's agent teams would
#: otherwise open their teammates as extra tmux panes next to the worker, outside mytty's control;
#: in-process keeps every teammate inside the worker's own pane.
CLAUDE_WORKER_FLAGS: tuple[str, ...] = ("--teammate-mode", "in-process")

# Codex asks for approval unless told otherwise; any of these means the lead already chose.
_CODEX_APPROVAL_FLAGS = frozenset(
    {
        "-a",
        "--ask-for-approval",
        "--full-auto",
        "--yolo",
        "--dangerously-bypass-approvals-and-sandbox",
    }
)


def access_flags(provider: WorkerProvider, access: Access) -> list[str]:
    """The fixed mode flags for ``review`` or ``workspace-write`` access."""
    return list(ACCESS_FLAGS[(provider, access)])


def codex_inherited_flags(tokens: Sequence[str]) -> list[str]:
    """Codex mode flags with ``-a never`` appended unless an approval policy is already there.

    A worker must never stop at an approval prompt nobody is watching; but a lead that chose
    ``--full-auto``/``--yolo``/an explicit ``-a`` keeps its choice.
    """
    for token in tokens:
        name = token.split("=", 1)[0] if token.startswith("-") else token
        if name in _CODEX_APPROVAL_FLAGS:
            return list(tokens)
    return [*tokens, "-a", "never"]


def build_launch_argv(
    provider: WorkerProvider, *, model: str | None, mode_flags: Sequence[str], task: str
) -> list[str]:
    """The worker's argv: binary, model flag, mode flags, ``--``, task + worker contract.

    ``mode_flags`` is either :func:`access_flags` or what :func:`inherit_mode_flags` returned.
    For codex the approval rule of :func:`codex_inherited_flags` is applied here (a no-op for the
    fixed access flags, which already carry ``-a never``). Claude also gets
    :data:`CLAUDE_WORKER_FLAGS` after the mode flags.
    """
    argv = [BINARIES[provider]]
    if model is not None:
        argv += [MODEL_FLAGS[provider], model]
    if provider is WorkerProvider.CODEX:
        argv += codex_inherited_flags(mode_flags)
    else:
        argv += mode_flags
    if provider is WorkerProvider.CLAUDE:
        argv += CLAUDE_WORKER_FLAGS
    argv += ["--", task_with_contract(task)]
    return argv


# --------------------------------------------------------------------------------------------
# Access resolution and inherit
# --------------------------------------------------------------------------------------------

# Flags worth inheriting: flag name → takes a value?
INHERITABLE_FLAGS: dict[WorkerProvider, dict[str, bool]] = {
    WorkerProvider.CLAUDE: {"--permission-mode": True, "--dangerously-skip-permissions": False},
    WorkerProvider.CODEX: {
        "-s": True,
        "--sandbox": True,
        "-a": True,
        "--ask-for-approval": True,
        "--full-auto": False,
        "--yolo": False,
        "--dangerously-bypass-approvals-and-sandbox": False,
    },
    WorkerProvider.CURSOR: {"--mode": True, "--force": False, "--sandbox": True},
}

#: Claude permission modes accepted from a transcript.
CLAUDE_STORED_MODES = frozenset(
    {"acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"}
)
#: Cursor modes accepted from its conversation store (both are read-only modes).
CURSOR_STORED_MODES = frozenset({"plan", "ask"})


def is_valid_flag_value(value: str) -> bool:
    """A flag value worth copying: non-empty, ≤100 scalars, no leading ``-``, no space/control."""
    if not value or len(value) > MAX_FIELD_SCALARS or value.startswith("-"):
        return False
    return not any(is_control_char(ch) or is_space_char(ch) for ch in value)


def scan_inherited_flags(provider: WorkerProvider, argv: Sequence[str]) -> list[str]:
    """Collect the permission flags of ``provider`` from a lead's argv, in their original order.

    Both ``--flag value`` and ``--flag=value`` are recognised; a valued flag always comes out as
    two tokens, spelled as the lead spelled it (``-s`` stays ``-s``). A flag whose value fails
    :func:`is_valid_flag_value` is dropped, and in the two-token form the would-be value is then
    examined as a flag of its own. The scan stops at a bare ``--``: what follows is the lead's
    prompt text, and a prompt that reads ``--dangerously-skip-permissions`` must not hand the
    worker that permission.
    """
    known = INHERITABLE_FLAGS[provider]
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            break
        name, eq, inline_value = token.partition("=")
        if eq:
            if known.get(name) is True and is_valid_flag_value(inline_value):
                out += [name, inline_value]
            continue
        takes_value = known.get(token)
        if takes_value is None:
            continue
        if not takes_value:
            out.append(token)
            continue
        if i < len(argv) and is_valid_flag_value(argv[i]):
            out += [token, argv[i]]
            i += 1
    return out


def resolve_access(
    requested: str | None, worker: WorkerProvider, lead_provider: AgentProvider | None
) -> ResolvedAccess:
    """An explicit access wins; omitted means inherit for a same-provider lead, else workspace-write."""
    if requested is None:
        return "inherit" if lead_provider == worker.agent_provider else "workspace-write"
    if requested == "inherit":
        return "inherit"
    if requested == "review":
        return "review"
    if requested == "workspace-write":
        return "workspace-write"
    raise ValueError(f"unknown access {requested!r}")


def stored_mode_flags(worker: WorkerProvider, stored_mode: str | None) -> list[str]:
    """Flags for a mode the lead recorded locally; empty when there is none or it isn't valid."""
    if stored_mode is None:
        return []
    if worker is WorkerProvider.CLAUDE and stored_mode in CLAUDE_STORED_MODES:
        return ["--permission-mode", stored_mode]
    if worker is WorkerProvider.CURSOR and stored_mode in CURSOR_STORED_MODES:
        return ["--mode", stored_mode]
    return []  # codex inherits from argv only


def inherit_mode_flags(
    worker: WorkerProvider, argv_flags: Sequence[str], stored_mode: str | None
) -> list[str]:
    """The inherited mode: argv flags, else the stored mode, else the workspace-write flags."""
    if argv_flags:
        return list(argv_flags)
    stored = stored_mode_flags(worker, stored_mode)
    if stored:
        return stored
    return access_flags(worker, "workspace-write")


# --------------------------------------------------------------------------------------------
# Where an "auto" split goes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PaneGeom:
    """A pane's id and its rectangle in character cells (as tmux reports it)."""

    id: str
    left: int
    top: int
    width: int
    height: int


# A terminal cell is about twice as tall as it is wide: compare width with 2 × height.
CELL_ASPECT = 2


def _halves_mismatch(
    width: float, height: float, direction: SplitDirection, window: float
) -> float:
    # How far (log scale) the halves' visual aspect is from the window's.
    w, h = (width / 2, height) if direction == "right" else (width, height / 2)
    return abs(math.log((w / (CELL_ASPECT * h)) / window))


def balanced_split(
    panes: Sequence[PaneGeom],
    window_w: int,
    window_h: int,
    *,
    prefer: str | None = None,
) -> tuple[str, SplitDirection]:
    """Pick the pane to split, and how, so a tab of workers grows into an even grid.

    Heuristic: split the pane with the largest area, across its longer *visual* side (``right``
    when ``width > 2 × height``, ``down`` when ``width < 2 × height``). Halving the biggest pane
    keeps every pane within a factor of two of the others, and cutting across the longer side keeps
    panes close to square, so 1 → 2 → 4 panes become two columns, then a 2 × 2 grid. A visually
    square pane is cut so its halves have the window's proportions (a wide window → ``down``).
    Ties on area go to ``prefer`` (normally the anchor), then to the top-most, left-most pane,
    then to the smaller id. The new pane always goes right of or below the old one, so the
    answer is ``right`` or ``down``.
    """
    if not panes:
        raise ValueError("a tab has at least one pane")
    target = min(
        panes,
        key=lambda p: (-(p.width * p.height), p.id != prefer, p.top, p.left, p.id),
    )
    visual_width = target.width
    visual_height = CELL_ASPECT * target.height
    if visual_width > visual_height:
        return target.id, "right"
    if visual_width < visual_height:
        return target.id, "down"
    window = max(window_w, 1) / (CELL_ASPECT * max(window_h, 1))
    width, height = max(target.width, 1), max(target.height, 1)
    if _halves_mismatch(width, height, "right", window) < _halves_mismatch(
        width, height, "down", window
    ):
        return target.id, "right"
    return target.id, "down"
