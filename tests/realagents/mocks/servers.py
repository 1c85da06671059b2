"""The loopback mocks now ship with mytty (``mytty integrations verify`` uses them too)."""

from mytty.verify.mock_api import (
    CANNED,
    SUBAGENT_REPORT,
    SUBAGENT_TASK,
    DenyProxy,
    Logged,
    MockAPI,
    Refused,
    Turn,
    first_line,
)

__all__ = [
    "CANNED",
    "SUBAGENT_REPORT",
    "SUBAGENT_TASK",
    "DenyProxy",
    "Logged",
    "MockAPI",
    "Refused",
    "Turn",
    "first_line",
]
