"""Every stable error code mytty puts on a wire, in one enum.

Codes are kebab-case and append-only: scripts match on them. The control socket answers
``{"type": "failure", "code": <code>, "message": <text>}``; ``mytty-ctl`` prints
``mytty-ctl: <code>: <text>`` on stderr and exits 1. The event socket answers
``{"ok": false, "error": <code>}`` with one of the four event codes.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    # -- shared by both sockets -------------------------------------------------------------
    INVALID_REQUEST = "invalid-request"
    REQUEST_TOO_LARGE = "request-too-large"
    INTERNAL_ERROR = "internal-error"
    # -- event socket ---------------------------------------------------------------------
    UNAUTHORIZED = "unauthorized"
    # -- control socket: transport and environment ----------------------------------------
    NOT_RUNNING = "not-running"
    NOT_READY = "not-ready"
    TIMEOUT = "timeout"
    INVALID_RESPONSE = "invalid-response"
    USAGE = "usage"
    PERMISSION_DENIED = "permission-denied"
    TMUX_UNAVAILABLE = "tmux-unavailable"
    NOT_IN_PANE = "not-in-pane"
    ALREADY_RUNNING = "already-running"
    SOCKET_PATH_TOO_LONG = "socket-path-too-long"
    UNSAFE_SOCKET_DIRECTORY = "unsafe-socket-directory"
    INVALID_HOME = "invalid-home"
    # -- pane commands --------------------------------------------------------------------
    PANE_NOT_FOUND = "pane-not-found"
    NEW_TAB_FAILED = "new-tab-failed"
    SPLIT_FAILED = "split-failed"
    INVALID_KEY = "invalid-key"
    INVALID_STATUS = "invalid-status"
    INVALID_COMMAND = "invalid-command"
    INVALID_CWD = "invalid-cwd"
    # -- waits ----------------------------------------------------------------------------
    PROVIDER_INTEGRATION_NOT_INSTALLED = "provider-integration-not-installed"
    PROVIDER_INTEGRATION_NEEDS_REPAIR = "provider-integration-needs-repair"
    # -- agent jobs -----------------------------------------------------------------------
    INVALID_TASK = "invalid-task"
    INVALID_LABEL = "invalid-label"
    INVALID_MODEL = "invalid-model"
    INVALID_WORKTREE_BRANCH = "invalid-worktree-branch"
    NOT_A_GIT_REPOSITORY = "not-a-git-repository"
    WORKTREE_CREATE_FAILED = "worktree-create-failed"
    INHERIT_UNAVAILABLE = "inherit-unavailable"
    SPAWN_FAILED = "spawn-failed"
    JOB_NOT_FOUND = "job-not-found"
    JOB_LOST = "job-lost"
    RUN_NOT_FOUND = "run-not-found"
    # -- integrations ---------------------------------------------------------------------
    INTEGRATION_DECLINED = "integration-declined"
    INVALID_CONFIGURATION = "invalid-configuration"
    INVALID_PROVIDER = "invalid-provider"
    # -- shell integration ----------------------------------------------------------------
    INVALID_SHELL = "invalid-shell"
    SHELL_RC_UNRECOGNIZED = "shell-rc-unrecognized"
    # -- agent jobs (appended) ------------------------------------------------------------
    PROVIDER_BINARY_NOT_FOUND = "provider-binary-not-found"
    # -- control socket budgets (appended) -------------------------------------------------
    TOO_MANY_REQUESTS = "too-many-requests"
    #: ``agent spawn --no-queue``: admission (``[admission]``) can't start the worker now.
    ADMISSION_REFUSED = "admission-refused"
    # -- approvals (appended) -------------------------------------------------------------
    APPROVAL_NOT_FOUND = "approval-not-found"
    APPROVAL_ALREADY_ANSWERED = "approval-already-answered"
    APPROVAL_NOT_YOURS = "approval-not-yours"
    APPROVAL_NOT_ON_SCREEN = "approval-not-on-screen"
    APPROVAL_MESSAGE_UNDELIVERABLE = "approval-message-undeliverable"
    APPROVAL_DELIVERY_FAILED = "approval-delivery-failed"
    APPROVAL_RULE_UNAVAILABLE = "approval-rule-unavailable"
    # -- other hosts (appended) -----------------------------------------------------------
    HOST_NOT_FOUND = "host-not-found"
    HOST_UNREACHABLE = "host-unreachable"
    HOST_AUTH_FAILED = "host-auth-failed"
    HOST_INCOMPATIBLE = "host-incompatible"
    #: Another host answers over SSH, but no mytty controller runs there (``not-running``
    #: stays this host's own controller's).
    CONTROLLER_NOT_RUNNING = "controller-not-running"
    # -- mytty web (appended) --------------------------------------------------------------
    INSECURE_LISTEN = "insecure-listen"
    INVALID_TLS = "invalid-tls"
    LISTEN_FAILED = "listen-failed"
    # -- usage limits (appended) ----------------------------------------------------------
    #: ``agent spawn --no-queue`` for a provider account whose workers are parked.
    PROVIDER_LIMITED = "provider-limited"
    #: ``limits resume`` / ``limits hold`` of a job that is not parked.
    JOB_NOT_PARKED = "job-not-parked"


EVENT_SOCKET_CODES: frozenset[ErrorCode] = frozenset(
    {
        ErrorCode.REQUEST_TOO_LARGE,
        ErrorCode.UNAUTHORIZED,
        ErrorCode.INVALID_REQUEST,
        ErrorCode.INTERNAL_ERROR,
    }
)


class MyttyError(Exception):
    """An error that crosses a boundary as a stable code plus a human explanation."""

    def __init__(self, code: ErrorCode, message: str = "") -> None:
        super().__init__(message or code.value)
        self.code = code
        self.message = message or code.value

    def __repr__(self) -> str:
        return f"MyttyError({self.code.value!r}, {self.message!r})"
