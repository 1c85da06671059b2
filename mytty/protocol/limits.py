"""Size and time limits shared by both sockets and their clients."""

from __future__ import annotations

#: Largest request body (the bytes before the newline) either socket accepts.
MAX_REQUEST_BYTES = 64 * 1024
#: Largest reply mytty-ctl accepts (a ``read`` of a big scrollback can be large).
MAX_CTL_RESPONSE_BYTES = 1024 * 1024
#: Largest reply the hook helper accepts.
MAX_EVENT_RESPONSE_BYTES = 64 * 1024
#: Largest hook payload the helper reads from stdin.
MAX_HOOK_STDIN_BYTES = 1024 * 1024
#: How long a server waits for a whole request line before dropping the client.
REQUEST_READ_TIMEOUT_S = 2.0
#: How long a server may spend writing a reply.
RESPONSE_WRITE_TIMEOUT_S = 10.0
#: The longest wait (``wait``, ``agent wait``) a client may ask for; a longer one is refused.
MAX_WAIT_S = 7 * 24 * 3600.0
#: How long the controller waits for the human to approve a hook install.
CONSENT_TIMEOUT_S = 180.0

# -- approvals: the facts live in mytty.core.approvals.timing (config.toml's schema reads them) --
from mytty.core.approvals.timing import (  # noqa: E402
    APPROVAL_HOLD_GRACE_S,
    APPROVAL_HOOK_MARGIN_S,
    APPROVAL_HOOK_TIMEOUT_S,
    MAX_APPROVAL_HOLD_S,
)

__all__ = [
    "APPROVAL_HOLD_GRACE_S",
    "APPROVAL_HOOK_MARGIN_S",
    "APPROVAL_HOOK_TIMEOUT_S",
    "CONSENT_TIMEOUT_S",
    "MAX_APPROVAL_HOLD_S",
    "MAX_CTL_RESPONSE_BYTES",
    "MAX_EVENT_RESPONSE_BYTES",
    "MAX_HOOK_STDIN_BYTES",
    "MAX_REQUEST_BYTES",
    "MAX_WAIT_S",
    "REQUEST_READ_TIMEOUT_S",
    "RESPONSE_WRITE_TIMEOUT_S",
]
