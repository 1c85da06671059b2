"""install/uninstall round trips for any format a user may have (a dict stands in for tmux;
tests/e2e/test_tmux_install.py runs the same against a real server)."""

from __future__ import annotations

import subprocess
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mytty.tmux import user_formats as uf


class DictCli(uf.TmuxCli):
    """Global options and prefix bindings in dicts; ``run`` only knows bind/unbind."""

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__("/nonexistent")
        self.options = dict(options)
        self.keys: dict[str, str] = {}

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        if args[0] == "bind-key":
            self.keys[args[3]] = " ".join(args[4:])
        elif args[0] == "unbind-key":
            self.keys.pop(args[3], None)
        else:  # pragma: no cover - nothing else is run by install/uninstall
            raise AssertionError(args)
        return subprocess.CompletedProcess(list(args), 0, "", "")

    def global_option(self, name: str) -> str | None:
        return self.options.get(name)

    def set_global(self, name: str, value: str) -> None:
        self.options[name] = value

    def unset_global(self, name: str) -> None:
        self.options.pop(name, None)

    def binding(self, key: str) -> str | None:
        return self.keys.get(key)


formats = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\0\n"))


def install(cli: DictCli, key: str = "A") -> list[Any]:
    return uf.install(cli, border=True, status=True, key=key, python="/py", home="/h")


@given(status=formats, border=formats, length=st.integers(0, 500))
def test_install_then_uninstall_restores_any_value(status: str, border: str, length: int) -> None:
    before = {
        "status-right": status,
        "pane-border-format": border,
        "status-right-length": str(length),
        "pane-border-status": "top",
    }
    cli = DictCli(before)
    install(cli)
    assert cli.options["status-right"] == status + uf.STATUS_SEGMENT
    assert cli.options["pane-border-format"] == border + uf.BORDER_SEGMENT
    assert cli.options["status-right-length"] == str(length + uf.STATUS_EXTRA_LENGTH)
    assert uf.POPUP_MARKER in cli.keys["A"]
    installed = dict(cli.options)
    install(cli)  # idempotent
    assert cli.options == installed
    uf.uninstall(cli)
    assert cli.options == before
    assert cli.keys == {}


@given(status=formats, extra=formats)
def test_a_change_after_install_survives_uninstall(status: str, extra: str) -> None:
    cli = DictCli({"status-right": status, "pane-border-status": "top"})
    install(cli)
    cli.options["status-right"] += extra
    uf.uninstall(cli)
    assert cli.options["status-right"] == status + extra
    assert not any(name.startswith(uf.SAVED_PREFIX) for name in cli.options)


def test_a_users_binding_is_kept_and_a_changed_key_moves() -> None:
    cli = DictCli({"pane-border-status": "top"})
    cli.keys["A"] = "display-message mine"
    changes = install(cli)
    assert cli.keys == {"A": "display-message mine"}
    assert any("already bound" in c.note for c in changes)
    install(cli, key="B")
    assert uf.POPUP_MARKER in cli.keys["B"]
    install(cli, key="C")
    assert "B" not in cli.keys and uf.POPUP_MARKER in cli.keys["C"]
    uf.uninstall(cli)
    assert cli.keys == {"A": "display-message mine"}


@given(status=formats, border=formats)
def test_segments_an_earlier_version_installed_are_replaced_and_removed(
    status: str, border: str
) -> None:
    old_status = uf.LEGACY_SEGMENTS["status-right"][0]
    old_border = uf.LEGACY_SEGMENTS["pane-border-format"][0]
    saved = {"@mytty_saved_status_right": status, "@mytty_saved_pane_border_format": border}
    cli = DictCli(
        {"status-right": status + old_status, "pane-border-format": border + old_border, **saved}
    )
    install(cli)  # the shown values are escaped from now on
    assert cli.options["status-right"] == status + uf.STATUS_SEGMENT
    assert cli.options["pane-border-format"] == border + uf.BORDER_SEGMENT
    uf.uninstall(cli)
    assert cli.options["status-right"] == status
    assert cli.options["pane-border-format"] == border
    # Uninstall alone removes an old segment too.
    cli = DictCli({"status-right": status + old_status, **saved})
    uf.uninstall(cli)
    assert cli.options["status-right"] == status


def test_shown_values_are_escaped_in_the_segments() -> None:
    for name in ("@mytty_provider", "@mytty_state", "@mytty_label", "@mytty_attention"):
        assert "#{q/h:" + name + "}" in uf.BORDER_SEGMENT
    assert "#{q/h:@mytty_attention_total}" in uf.STATUS_SEGMENT
