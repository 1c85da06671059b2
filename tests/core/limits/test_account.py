"""Which account a worker's usage counts against, and that no secret is kept."""

from __future__ import annotations

from mytty.core.limits.account import account_of, config_dir, fingerprint

HOME = {"HOME": "/home/dev"}


def test_same_key_same_account_other_key_other_account() -> None:
    a = account_of("claude-code", HOME | {"ANTHROPIC_API_KEY": "sk-ant-one"})
    b = account_of("claude-code", HOME | {"ANTHROPIC_API_KEY": "sk-ant-one", "TERM": "x"})
    c = account_of("claude-code", HOME | {"ANTHROPIC_API_KEY": "sk-ant-two"})
    assert a == b
    assert a.key != c.key
    assert a.key.startswith("claude-code:")


def test_no_secret_in_the_key_or_the_label() -> None:
    secret = "sk-ant-oat01-verysecretvalue"
    account = account_of("claude-code", HOME | {"CLAUDE_CODE_OAUTH_TOKEN": secret})
    assert secret not in account.key and secret not in account.label
    assert fingerprint(secret)[:8] in account.label


def test_without_a_credential_the_config_directory_is_the_account() -> None:
    a = account_of("codex", HOME)
    b = account_of("codex", {"HOME": "/elsewhere", "CODEX_HOME": "/home/dev/.codex"})
    c = account_of("codex", HOME | {"CODEX_HOME": "/srv/codex"})
    assert a == b
    assert a.key != c.key
    assert config_dir("codex", HOME) == "/home/dev/.codex"
    assert config_dir("claude-code", HOME | {"CLAUDE_CONFIG_DIR": "/cfg"}) == "/cfg"


def test_the_login_id_wins_over_the_directory() -> None:
    a = account_of("claude-code", HOME, login_id="acct-1")
    b = account_of("claude-code", {"HOME": "/other"}, login_id="acct-1")
    assert a == b


def test_the_endpoint_is_part_of_the_account() -> None:
    key = {"ANTHROPIC_API_KEY": "k"}
    a = account_of("claude-code", HOME | key)
    b = account_of("claude-code", HOME | key | {"ANTHROPIC_BASE_URL": "http://127.0.0.1:1"})
    assert a.key != b.key
    assert "http://127.0.0.1:1" in b.label


def test_providers_never_share_an_account() -> None:
    assert account_of("codex", HOME).key != account_of("claude-code", HOME).key
