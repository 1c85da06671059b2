"""One adapter module per provider: ``map_payload(payload) -> HookMapping | None``.

Adapters are pure (payload in, mapping out) and imported lazily, so one hook invocation loads
only its own provider's module. Providers that expect an answer on stdout also define
``neutral_reply(payload) -> bytes | None``; ``payload`` is None when stdin could not be read.
"""

from mytty.core import vocab
from mytty.hook.mapping import PROVIDERS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from types import ModuleType

_MODULES = {
    vocab.CODEX: "codex",
    vocab.CLAUDE_CODE: "claude",
    vocab.OPENCODE: "opencode",
    vocab.ANTIGRAVITY: "antigravity",
    vocab.CURSOR: "cursor",
}


def load_adapter(provider: str) -> "ModuleType":
    """The adapter module for a provider raw value. Raises KeyError for an unknown provider."""
    if provider not in PROVIDERS:
        raise KeyError(provider)
    name = f"mytty.hook.adapters.{_MODULES[provider]}"
    return __import__(name, fromlist=["map_payload"])


def neutral_reply(provider: str, payload: dict[str, object] | None) -> bytes | None:
    """What the helper prints on stdout whatever else happens, or None for silent providers."""
    reply = getattr(load_adapter(provider), "neutral_reply", None)
    return reply(payload) if reply is not None else None
