"""Which provider account a worker's usage counts against, as far as mytty can tell.

Usage limits belong to an account, not to a worker: every worker on one account stops at once,
and a worker on another account does not. mytty cannot ask the provider, so it derives the
account from what a worker runs with, from the strongest sign to the weakest:

1. the login's own account id, when the agent's config holds one (Claude's
   ``.claude.json`` ``oauthAccount.accountUuid``, Codex's ``auth.json`` ``tokens.account_id``;
   the controller reads those files and passes the id in);
2. else the credential in its environment (Claude ``ANTHROPIC_API_KEY``,
   ``ANTHROPIC_AUTH_TOKEN``, ``CLAUDE_CODE_OAUTH_TOKEN``; Codex ``OPENAI_API_KEY``,
   ``CODEX_API_KEY``; Cursor ``CURSOR_API_KEY``), by a fingerprint: the first 12 hex digits of
   its SHA-256, never the secret itself;
3. else its config directory (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, ``$CODEX_HOME`` or
   ``~/.codex``, ``~/.cursor``): the login stored there.

A custom endpoint (``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``) is part of the account too: the
same key against another gateway is another quota. Two workers with the same key are one
account; a key is ``<provider>:<12 hex digits>`` and says nothing secret.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

_CREDENTIALS: dict[str, tuple[str, ...]] = {
    "claude-code": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    "codex": ("OPENAI_API_KEY", "CODEX_API_KEY"),
    "cursor": ("CURSOR_API_KEY",),
}
_ENDPOINTS: dict[str, tuple[str, ...]] = {
    "claude-code": ("ANTHROPIC_BASE_URL",),
    "codex": ("OPENAI_BASE_URL",),
}
#: (the variable naming the config directory, its default under HOME).
_CONFIG_DIRS: dict[str, tuple[str | None, str]] = {
    "claude-code": ("CLAUDE_CONFIG_DIR", ".claude"),
    "codex": ("CODEX_HOME", ".codex"),
    "cursor": (None, ".cursor"),
}


@dataclass(frozen=True, slots=True)
class Account:
    """One provider account: ``key`` identifies it, ``label`` tells a human which it is."""

    key: str
    label: str


def fingerprint(secret: str) -> str:
    """The first 12 hex digits of the secret's SHA-256: enough to tell keys apart, no more."""
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def config_dir(provider: str, env: Mapping[str, str]) -> str:
    """Where the provider's CLI keeps its login, in the environment ``env``."""
    variable, default = _CONFIG_DIRS.get(provider, (None, f".{provider}"))
    explicit = env.get(variable) if variable is not None else None
    if explicit:
        return explicit
    return posixpath.join(env.get("HOME") or "~", default)


def account_of(provider: str, env: Mapping[str, str], *, login_id: str | None = None) -> Account:
    """The account a worker of ``provider`` with environment ``env`` uses (see the module)."""
    config = config_dir(provider, env)
    endpoint = next((env[v] for v in _ENDPOINTS.get(provider, ()) if env.get(v)), "")
    credential = next((v for v in _CREDENTIALS.get(provider, ()) if env.get(v)), None)
    if login_id:
        identity, shown = ("login", login_id), f"login {login_id}"
    elif credential is not None:
        printed = fingerprint(env[credential])
        identity, shown = (credential, printed), f"{config}, {credential} {printed[:8]}…"
    else:
        identity, shown = ("config", config), config
    digest = hashlib.sha256("\0".join((provider, *identity, endpoint)).encode()).hexdigest()
    label = f"{provider} ({shown}" + (f", {endpoint})" if endpoint else ")")
    return Account(f"{provider}:{digest[:12]}", label)
