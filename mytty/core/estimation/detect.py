"""Which agent CLI a process is, judged from its executable path and argv alone.

The controller reads ``/proc/<pid>/exe`` and ``/proc/<pid>/cmdline`` of a pane's foreground
process (and, when that is a shell, of a few of its children) and asks :func:`classify_process`.
Only three tokens are looked at — the executable path, ``argv[0]`` and ``argv[1]`` — because the
agent CLIs are started either directly (``claude``, ``cursor-agent``), through an interpreter
(``node …/@openai/codex/bin/codex.js``), or through npm's native-binary layout
(``…/@anthropic-ai/claude-code/bin/claude.exe``). Each token is lowercased and checked twice: its
basename for an exact name, and all tokens joined with NUL for a distinctive path fragment.

The rules run in a fixed order and the first hit wins. Gemini CLI is checked last and reported as
``antigravity`` (the provider that owns its hooks), so a process that merely mentions ``gemini``
never shadows a more specific match.
"""

from __future__ import annotations

from collections.abc import Sequence

from mytty.core.events import AgentProvider

#: Foreground executables that mean "the pane is at a shell" (worth a look at the children).
SHELL_NAMES: frozenset[str] = frozenset(
    {"zsh", "bash", "fish", "sh", "dash", "tcsh", "csh", "ksh", "nu", "pwsh"}
)

_DISPLAY_NAMES: dict[AgentProvider, str] = {
    AgentProvider.CLAUDE_CODE: "Claude Code",
    AgentProvider.CODEX: "Codex",
    AgentProvider.OPENCODE: "OpenCode",
    AgentProvider.ANTIGRAVITY: "Gemini (Antigravity)",
    AgentProvider.CURSOR: "Cursor",
}

# (provider, exact basenames, basename prefixes, path fragments) in the order they are tried.
_RULES: tuple[tuple[AgentProvider, frozenset[str], tuple[str, ...], tuple[str, ...]], ...] = (
    (AgentProvider.CURSOR, frozenset({"cursor-agent"}), (), ("/cursor-agent/",)),
    (AgentProvider.ANTIGRAVITY, frozenset({"agy", "antigravity"}), (), ("/antigravity/",)),
    (AgentProvider.CLAUDE_CODE, frozenset({"claude", "claude-code"}), (), ("/claude-code/",)),
    (AgentProvider.OPENCODE, frozenset({"opencode"}), (), ("/opencode/",)),
    (AgentProvider.CODEX, frozenset({"codex"}), ("codex-",), ("/@openai/codex/",)),
    (AgentProvider.ANTIGRAVITY, frozenset({"gemini", "gemini-cli"}), (), ("/gemini-cli/",)),
)


def _basename(token: str) -> str:
    return token.rsplit("/", 1)[-1]


def classify_process(exe_path: str | None, argv: Sequence[str]) -> AgentProvider | None:
    """Return the agent provider a process belongs to, or None when it is not a known agent."""
    tokens = [t.lower() for t in (exe_path, *argv[:2]) if t]
    if not tokens:
        return None
    basenames = {_basename(t) for t in tokens}
    joined = "\0".join(tokens)
    for provider, names, prefixes, fragments in _RULES:
        if basenames & names:
            return provider
        if prefixes and any(b.startswith(prefixes) for b in basenames):
            return provider
        if any(fragment in joined for fragment in fragments):
            return provider
    return None


def parse_agent_hint(value: str | None) -> AgentProvider | None:
    """Read a ``MYTTY_AGENT`` value: trimmed, lowercased, and only an exact provider raw value.

    The hint labels a wrapper the rules can't recognise; callers consult it only after
    :func:`classify_process` found nothing, so it never overrides a real match.
    """
    if value is None:
        return None
    try:
        return AgentProvider(value.strip().lower())
    except ValueError:
        return None


def is_shell(name: str) -> bool:
    """True when an executable basename (or a login shell's ``-zsh`` style argv[0]) is a shell."""
    return _basename(name).lstrip("-").lower() in SHELL_NAMES


def display_name(provider: AgentProvider) -> str:
    """The human name ``list`` shows as a pane's ``command`` when an agent is detected."""
    return _DISPLAY_NAMES[provider]
