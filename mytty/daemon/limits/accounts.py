"""The account a worker's usage counts against, from what the controller can see of it: the
agent process's own environment (``/proc/<pid>/environ``) and the login its config directory
holds (:mod:`mytty.core.limits.account` has the rule)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from mytty.core.limits.account import Account, account_of, config_dir
from mytty.daemon import procfs

#: A config file bigger than this is not read for the account id.
MAX_CONFIG_BYTES = 1024 * 1024


def _json(path: str) -> object:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_CONFIG_BYTES:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 256 else None


def login_id(provider: str, env: Mapping[str, str]) -> str | None:
    """The login's account id the provider's config holds, if any (never a token).

    Claude Code: ``oauthAccount.accountUuid`` of ``.claude.json`` (in ``$CLAUDE_CONFIG_DIR``, else
    in ``$HOME``); Codex: ``tokens.account_id`` of ``$CODEX_HOME/auth.json`` (a ChatGPT login).
    """
    if provider == "claude-code":
        base = env.get("CLAUDE_CONFIG_DIR") or env.get("HOME") or ""
        data = _json(os.path.join(base, ".claude.json")) if base else None
        account = data.get("oauthAccount") if isinstance(data, dict) else None
        return _text(account.get("accountUuid")) if isinstance(account, dict) else None
    if provider == "codex":
        data = _json(os.path.join(config_dir(provider, env), "auth.json"))
        tokens = data.get("tokens") if isinstance(data, dict) else None
        return _text(tokens.get("account_id")) if isinstance(tokens, dict) else None
    return None


def account_of_process(
    provider: str, pid: int | None, fallback: Mapping[str, str], *, proc_root: str = procfs.PROC
) -> Account:
    """The account of the agent process ``pid`` (its environment), else of ``fallback`` (the
    environment the controller gives workers) when the process is gone or unreadable."""
    env = procfs.environ(pid, proc_root=proc_root) if pid is not None else None
    if env is None:
        env = dict(fallback)
    return account_of(provider, env, login_id=login_id(provider, env))
