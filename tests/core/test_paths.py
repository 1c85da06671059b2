"""The MYTTY_HOME default and the socket names, resolved from an environment."""

from __future__ import annotations

from mytty.core import paths


def test_home_default_and_override() -> None:
    assert paths.mytty_home({"HOME": "/h"}) == "/h/.config/mytty"
    assert paths.mytty_home({"HOME": "/h", "MYTTY_HOME": "/m/"}) == "/m"
    assert paths.mytty_home({"HOME": "/h", "MYTTY_HOME": "~/x"}) == "/h/x"
    assert paths.mytty_home({"HOME": "/h", "MYTTY_HOME": ""}) == "/h/.config/mytty"


def test_control_socket_prefers_the_pane_variable() -> None:
    assert paths.control_socket({"HOME": "/h"}) == "/h/.config/mytty/control.sock"
    assert paths.control_socket({"MYTTY_HOME": "/m"}) == "/m/control.sock"
    env = {"MYTTY_HOME": "/m", "MYTTY_CONTROL_SOCKET": "/s.sock"}
    assert paths.control_socket(env) == "/s.sock"


def test_the_controller_and_the_installers_agree() -> None:
    from mytty.daemon.home import Home, default_home
    from mytty.integrations.common import Locations

    env = {"HOME": "/h", "MYTTY_HOME": "~/m"}
    home = Home(default_home(env))
    assert str(home.control_socket) == paths.control_socket(env) == "/h/m/control.sock"
    assert Locations.from_env(env).guide == home.guide_file
