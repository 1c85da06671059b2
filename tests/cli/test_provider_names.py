"""The two provider vocabularies meet (issue 26, item 14): ``mytty integrations enable claude``
was ``invalid-provider`` with no suggestion, ``agent spawn --provider claude-code`` the same, and
``mytty-ctl integrations list`` (the human command's noun) an unknown command."""

from __future__ import annotations

from tests.cli.conftest import FakeController, ctl_env, run_ctl


def test_mytty_ctl_suggests_the_other_vocabularys_name(fake: FakeController) -> None:
    env = ctl_env(fake.path)
    enable = run_ctl("integration", "enable", "claude", env=env)
    assert enable.code == "invalid-provider"
    assert "(did you mean claude-code?)" in enable.message
    spawn = run_ctl("agent", "spawn", "--provider", "claude-code", "--task", "x", env=env)
    assert spawn.code == "usage"
    assert "(did you mean claude?)" in spawn.message
    noun = run_ctl("integrations", "list", env=env)
    assert noun.code == "usage" and "(did you mean integration?)" in noun.message
    assert fake.requests == []  # all refused before connecting


def test_a_raw_request_with_the_alias_gets_the_suggestion_too() -> None:
    import pytest

    from mytty.control.integration_enable import provider_of
    from mytty.core.errors import MyttyError

    with pytest.raises(MyttyError) as caught:
        provider_of("claude")
    assert caught.value.code.value == "invalid-provider"
    assert "did you mean claude-code?" in caught.value.message
