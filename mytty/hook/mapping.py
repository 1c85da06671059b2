"""What a provider adapter extracts from one hook payload, before ids, surface and clock.

An adapter turns a payload into a :class:`HookMapping` (or None when the event is not one mytty
follows). The mapping holds wire strings, not the ``core.events`` enums: ``mytty.core.events``
pulls in ``dataclasses`` and ``datetime``, which would roughly double the helper's start-up time,
and the helper runs on every tool call. ``mytty.hook.adapt`` converts to ``AgentEvent`` for
callers that want the typed value; tests check both agree.
"""

from mytty.core import vocab

#: The wire values of AgentEventKind (kept as strings here; a test pins them to the enum).
IDLE = "idle"
STARTED = "started"
RUNNING = "running"
INPUT_REQUESTED = "input-requested"
APPROVAL_REQUESTED = "approval-requested"
SUCCEEDED = "succeeded"
FAILED = "failed"
DISCONNECTED = "disconnected"
LIMIT_REACHED = "limit-reached"

#: The raw values of AgentProvider, in the canonical order.
PROVIDERS: tuple[str, ...] = vocab.PROVIDERS

#: Permission requests for these tools ask the user a question rather than for a go-ahead.
INPUT_TOOLS = frozenset({"AskUserQuestion", "request_user_input", "question"})


class HookMapping:
    """One payload, read: the event kind plus the provider fields that travel with it.

    ``run_key`` may be None; the caller decides whether that is an error (it is for a mapped
    event that is going to be sent). A plain slotted class rather than a dataclass keeps the
    ``dataclasses``/``inspect`` import off the hook's start-up path.
    """

    __slots__ = (
        "hook_name",
        "kind",
        "last_assistant_message",
        "message",
        "run_key",
        "session_id",
        "tool_name",
        "tool_use_id",
    )

    def __init__(
        self,
        kind: str,
        *,
        run_key: str | None,
        session_id: str | None = None,
        message: str | None = None,
        hook_name: str | None = None,
        tool_name: str | None = None,
        tool_use_id: str | None = None,
        last_assistant_message: str | None = None,
    ) -> None:
        self.kind = kind
        self.run_key = run_key
        self.session_id = session_id
        self.message = message
        self.hook_name = hook_name
        self.tool_name = tool_name
        self.tool_use_id = tool_use_id
        self.last_assistant_message = last_assistant_message

    def _fields(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HookMapping):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"HookMapping({inner})"


class MissingRunKey(ValueError):
    """A payload mytty maps carries no usable run key (no turn/prompt id and no session id)."""
