"""How long a permission request may be held, and what the installed hook needs around it.

Plain constants (no imports): the hook helper, config.toml's schema and the installers read
them (through :mod:`mytty.protocol.limits` where the hook does).
"""

#: The longest ``[approvals] hold_seconds``: how long a PermissionRequest hook may wait for a
#: decision on the event socket.
MAX_APPROVAL_HOLD_S = 600.0
#: The ``timeout`` the installers give mytty's PermissionRequest handlers (Claude Code and
#: Codex): above every hold the config can ask for, so neither agent kills a holding hook,
#: and fixed, so changing the hold never changes the handler (Codex's trust hash covers it).
APPROVAL_HOOK_TIMEOUT_S = 630
#: What a holding hook needs besides the hold itself, within its handler's timeout: the first
#: reply (the hook's own delivery deadline), the decision line arriving after the hold's end,
#: and exit. A hold is cut to the handler's timeout minus this (an older install's 5 s).
APPROVAL_HOOK_MARGIN_S = 4.0
#: How long after the hold's announced end the hook still waits for the decision line.
APPROVAL_HOLD_GRACE_S = 2.0
