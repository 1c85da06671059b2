"""Pane commands against a real tmux server and a real controller: list, new-tab, split, read,
focus, close-pane, status, the failure codes each can return, and adoption of panes that
exist before (or are made behind the back of) the controller.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest

from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

UUID_RE = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
PANE_KEYS = {"paneID", "windowID", "tabID", "title", "command", "workingDirectory", "isActive"}
# mytty's addition, present once the pane's shell integration reported (its own tests check it).
ADDED_KEYS = {"shell"}
# Fixed, so that every test worker collects the same ids; no pane can hold it (ids are uuid4).
UNKNOWN = "7FBE50D2-1C2A-46BC-8DC9-D147CD0C08DB"


def geometry(m: Mytty) -> dict[str, dict[str, Any]]:
    """tmux's own view of every pane carrying a surface id."""
    fmt = (
        "#{@mytty_surface}|#{pane_id}|#{pane_left}|#{pane_top}|#{pane_width}|#{pane_height}|"
        "#{window_id}|#{session_id}|#{window_active}|#{pane_active}|#{pane_current_path}|"
        "#{window_name}"
    )
    out: dict[str, dict[str, Any]] = {}
    for line in m.tmux("list-panes", "-a", "-F", fmt).splitlines():
        surface, tid, left, top, w, h, wid, sid, wact, pact, path, wname = line.split("|")
        if surface:
            out[surface] = {
                "tmux": tid,
                "left": int(left),
                "top": int(top),
                "width": int(w),
                "height": int(h),
                "window": wid,
                "session": sid,
                "active": wact == "1" and pact == "1",
                "pane_active": pact == "1",
                "path": path,
                "window_name": wname,
            }
    return out


def by_id(m: Mytty) -> dict[str, dict[str, Any]]:
    return {p["paneID"]: p for p in m.panes()}


def new_pane(m: Mytty, *args: str, **kwargs: Any) -> str:
    reply = m.ctl(*args, **kwargs).json
    assert set(reply) == {"type", "paneID"} and reply["type"] == "pane"
    assert UUID_RE.match(reply["paneID"])
    return str(reply["paneID"])


# -- list and adoption ------------------------------------------------------------------------
def test_list_adopts_the_preexisting_pane_with_the_exact_shape(mytty: Mytty) -> None:
    ran = mytty.ctl("list")
    reply = ran.json
    # mytty-ctl re-encodes compactly with sorted keys, one line.
    assert (
        ran.stdout
        == json.dumps(reply, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    )
    assert set(reply) == {"type", "panes"} and reply["type"] == "list"
    panes = reply["panes"]
    assert len(panes) == 1  # the base session's pane; the controller's private one is hidden
    pane = panes[0]
    # No agent events yet and no status: provider, agentState, statusNote are absent, not null.
    assert set(pane) - ADDED_KEYS == PANE_KEYS
    assert UUID_RE.match(pane["paneID"])
    tmux = geometry(mytty)[pane["paneID"]]  # the id is stored in the pane's @mytty_surface
    assert pane["windowID"] == tmux["session"] and pane["windowID"].startswith("$")
    assert pane["tabID"] == tmux["window"] and pane["tabID"].startswith("@")
    assert pane["title"] == tmux["window_name"]
    assert pane["command"] == "bash"
    assert pane["workingDirectory"] == tmux["path"]
    assert pane["isActive"] is True
    # The same answer straight from the socket.
    raw = mytty.request({"type": "list"})
    assert raw["type"] == "list" and [p["paneID"] for p in raw["panes"]] == [pane["paneID"]]


def test_panes_made_with_tmux_by_hand_are_adopted_without_asking(mytty: Mytty) -> None:
    first = mytty.first_pane()
    # tmux's own output must stay clean: the controller's hooks print nothing to clients.
    split_out = mytty.tmux("split-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}")
    assert re.fullmatch(r"%\d+\n", split_out), split_out
    window_out = mytty.tmux("new-window", "-d", "-t", "base:", "-P", "-F", "#{pane_id}")
    session_out = mytty.tmux("new-session", "-d", "-s", "other", "-P", "-F", "#{pane_id}")
    made = [split_out.strip(), window_out.strip(), session_out.strip()]

    # Adoption is driven by tmux hooks: nobody asks the controller anything meanwhile.
    def surfaces() -> list[str] | None:
        found = [
            mytty.tmux("display-message", "-p", "-t", t, "#{@mytty_surface}").strip() for t in made
        ]
        return found if all(found) else None

    adopted = wait_until(surfaces, 10, message="hand-made panes to get surface ids")
    assert all(UUID_RE.match(s) for s in adopted)
    assert len(set(adopted) | {first}) == 4
    listed = by_id(mytty)
    assert set(listed) == set(adopted) | {first}
    assert listed[adopted[2]]["windowID"] != listed[first]["windowID"]  # another session

    # A pane closed by hand disappears the same way.
    mytty.tmux("kill-pane", "-t", made[0])
    wait_until(lambda: adopted[0] not in by_id(mytty), 10, message="killed pane to vanish")
    assert mytty.ctl("read", adopted[0]).code == "pane-not-found"


# -- new-tab ----------------------------------------------------------------------------------
def test_new_tab_opens_a_window_in_the_current_session(mytty: Mytty) -> None:
    first = mytty.first_pane()
    before = geometry(mytty)
    pane = new_pane(mytty, "new-tab")
    listed = by_id(mytty)
    assert set(listed) == {first, pane}
    assert set(listed[pane]) - ADDED_KEYS == PANE_KEYS
    assert listed[pane]["windowID"] == listed[first]["windowID"]  # same tmux session
    assert listed[pane]["tabID"] != listed[first]["tabID"]  # a window of its own
    after = geometry(mytty)
    assert after[pane]["window"] not in {g["window"] for g in before.values()}
    assert len(mytty.tmux("list-panes", "-t", after[pane]["window"]).splitlines()) == 1


def test_new_tab_cwd(mytty: Mytty) -> None:
    odd = mytty.root / "dir with space é"
    odd.mkdir()
    pane = new_pane(mytty, "new-tab", "--cwd", str(odd))
    wait_until(
        lambda: by_id(mytty)[pane]["workingDirectory"] == str(odd), 10, message="new tab in --cwd"
    )
    # A relative --cwd is resolved against the caller's working directory.
    (mytty.root / "rel").mkdir()
    rel = new_pane(mytty, "new-tab", "--cwd", "rel", cwd=str(mytty.root))
    wait_until(
        lambda: by_id(mytty)[rel]["workingDirectory"] == str(mytty.root / "rel"),
        10,
        message="new tab in relative --cwd",
    )


def test_new_tab_failures(mytty: Mytty) -> None:
    count = len(mytty.panes())
    assert mytty.ctl("new-tab", "--cwd", str(mytty.root / "missing")).code == "invalid-cwd"
    a_file = mytty.root / "file"
    a_file.write_text("x")
    assert mytty.ctl("new-tab", "--cwd", str(a_file)).code == "invalid-cwd"
    assert mytty.ctl("new-tab", "--command", "").code == "invalid-command"
    # The server checks too (other clients may not).
    reply = mytty.request({"type": "newTab", "workingDirectory": "relative"})
    assert reply["code"] == "invalid-cwd"
    assert mytty.request({"type": "newTab", "command": ""})["code"] == "invalid-command"
    assert mytty.request({"type": "newTab", "command": 5})["code"] == "invalid-request"
    assert mytty.request({"type": "newTab", "workingDirectory": ["/"]})["code"] == "invalid-request"
    assert len(mytty.panes()) == count  # nothing was created


# -- split --------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["left", "right", "up", "down"])
def test_split_direction(mytty: Mytty, direction: str) -> None:
    source = mytty.first_pane()
    created = new_pane(mytty, "split", source, direction)
    g = geometry(mytty)
    src, new = g[source], g[created]
    assert src["window"] == new["window"]
    if direction in ("left", "right"):
        assert src["top"] == new["top"] and src["height"] == new["height"]
        assert (new["left"] > src["left"]) == (direction == "right")
    else:
        assert src["left"] == new["left"] and src["width"] == new["width"]
        assert (new["top"] > src["top"]) == (direction == "down")
    # The source keeps the focus: a split never steals it.
    assert src["pane_active"] and not new["pane_active"]


def test_split_auto_grows_an_even_grid(mytty: Mytty) -> None:
    tab = new_pane(mytty, "new-tab")  # a 200x50 window of its own
    first = new_pane(mytty, "split", tab)  # direction defaults to auto
    g = geometry(mytty)
    assert g[first]["left"] > g[tab]["left"] and g[first]["top"] == g[tab]["top"]
    new_pane(mytty, "split", tab, "auto")
    new_pane(mytty, "split", tab, "auto")
    window = geometry(mytty)[tab]["window"]
    cells = [p for p in geometry(mytty).values() if p["window"] == window]
    assert len(cells) == 4
    assert len({p["left"] for p in cells}) == 2 and len({p["top"] for p in cells}) == 2
    areas = [p["width"] * p["height"] for p in cells]
    assert max(areas) <= 1.2 * min(areas)


def test_split_working_directory(mytty: Mytty) -> None:
    source = mytty.first_pane()
    there = mytty.root / "wd"
    there.mkdir()
    # Without --cwd the new pane starts where the source pane's shell is.
    mytty.ctl("send", source, f"cd {shlex.quote(str(there))}", "--enter").ok()
    wait_until(
        lambda: by_id(mytty)[source]["workingDirectory"] == str(there),
        10,
        message="source pane to cd",
    )
    inherited = new_pane(mytty, "split", source, "down")
    wait_until(
        lambda: by_id(mytty)[inherited]["workingDirectory"] == str(there),
        10,
        message="split to inherit the source's directory",
    )
    explicit = new_pane(mytty, "split", source, "right", "--cwd", str(mytty.home))
    wait_until(
        lambda: by_id(mytty)[explicit]["workingDirectory"] == str(mytty.home),
        10,
        message="split in --cwd",
    )


def test_split_failures(mytty: Mytty) -> None:
    source = mytty.first_pane()
    count = len(mytty.panes())
    assert mytty.ctl("split", UNKNOWN).code == "pane-not-found"
    assert mytty.ctl("split", "not-a-uuid", "left").code == "pane-not-found"
    assert mytty.ctl("split", source, "--cwd", str(mytty.root / "missing")).code == "invalid-cwd"
    assert mytty.ctl("split", source, "--command", "").code == "invalid-command"
    assert mytty.ctl("split", source, "diagonal").code == "usage"
    reply = mytty.request({"type": "split", "paneID": source, "direction": "diagonal"})
    assert reply["code"] == "invalid-request"
    assert mytty.request({"type": "split", "direction": "left"})["code"] == "invalid-request"
    assert mytty.request({"type": "split", "paneID": 7})["code"] == "invalid-request"
    assert len(mytty.panes()) == count
    # A pane too small to split: tmux refuses, mytty says split-failed.
    mytty.tmux("new-session", "-d", "-s", "tiny", "-x", "6", "-y", "2")
    session = mytty.tmux("display-message", "-p", "-t", "tiny:", "#{session_id}").strip()
    tiny = [p["paneID"] for p in mytty.panes() if p["windowID"] == session]
    assert len(tiny) == 1
    assert mytty.ctl("split", tiny[0], "down").code == "split-failed"


def test_pane_that_dies_at_creation_is_the_commands_failure(mytty: Mytty) -> None:
    first = mytty.first_pane()
    # The user's own tmux hooks destroy every new window and pane right away.
    mytty.tmux("set-hook", "-g", "after-new-window[0]", "kill-window")
    mytty.tmux("set-hook", "-g", "after-split-window[0]", "kill-pane")
    assert mytty.ctl("new-tab").code == "new-tab-failed"
    assert mytty.ctl("new-tab", "--command", "echo never").code == "new-tab-failed"
    assert mytty.ctl("split", first, "right").code == "split-failed"
    assert mytty.ctl("split", first, "--command", "echo never").code == "split-failed"
    assert [p["paneID"] for p in mytty.panes()] == [first]
    # The text of a command that never ran is not left behind.
    assert list((mytty.mytty_home / "launch").iterdir()) == []


# -- read ---------------------------------------------------------------------------------------
def test_read_text_and_cursor(mytty: Mytty) -> None:
    source = mytty.first_pane()
    pane = new_pane(
        mytty,
        "split",
        source,
        "right",
        "--command",
        "clear; printf 'alpha\\nbeta\\ngamma:'; sleep 600",
    )
    text = mytty.wait_for_text(pane, "gamma:")
    reply = mytty.ctl("read", pane).json
    assert set(reply) == {"type", "content"} and reply["type"] == "content"
    content = reply["content"]
    assert set(content) == {"paneID", "text", "cursorRow", "cursorColumn"}
    assert content["paneID"] == pane
    text = content["text"]
    assert text.endswith("alpha\nbeta\ngamma:")  # trailing blank rows are trimmed
    lines = text.split("\n")
    assert content["cursorRow"] == len(lines) - 1
    assert content["cursorColumn"] == len("gamma:")


def test_read_joins_wrapped_lines_and_counts_the_cursor_in_characters(mytty: Mytty) -> None:
    source = mytty.first_pane()
    long = "W" * 150 + " é界"  # wider than the pane (about 100 columns): it wraps
    pane = new_pane(
        mytty,
        "split",
        source,
        "right",
        "--command",
        f"clear; printf '%s' {shlex.quote(long)}; sleep 600",
    )
    mytty.wait_for_text(pane, "界")
    assert geometry(mytty)[pane]["width"] < 150
    content = mytty.ctl("read", pane).json["content"]
    lines = content["text"].split("\n")
    assert lines[-1] == long
    assert content["cursorRow"] == len(lines) - 1
    assert content["cursorColumn"] == len(long)


def test_read_includes_scrollback_and_echoes_the_id_as_sent(mytty: Mytty) -> None:
    source = mytty.first_pane()
    pane = new_pane(
        mytty,
        "split",
        source,
        "down",
        "--command",
        "for i in $(seq -w 1 300); do echo line-$i; done; sleep 600",
    )
    mytty.wait_for_text(pane, "line-300")
    text = mytty.ctl("read", pane.lower()).json["content"]["text"]
    numbered = [line for line in text.split("\n") if line.startswith("line-")]
    assert numbered == [f"line-{i:03d}" for i in range(1, 301)]  # far more than the screen
    assert mytty.ctl("read", pane.lower()).json["content"]["paneID"] == pane.lower()


# -- focus and close-pane -------------------------------------------------------------------------
def test_focus_selects_window_and_pane(mytty: Mytty) -> None:
    first = mytty.first_pane()
    tab = new_pane(mytty, "new-tab")  # created in the background
    assert by_id(mytty)[tab]["isActive"] is False
    assert mytty.ctl("focus", tab).json == {"type": "ok"}
    g = geometry(mytty)
    assert g[tab]["active"] and not g[first]["active"]
    listed = by_id(mytty)
    assert listed[tab]["isActive"] is True and listed[first]["isActive"] is False
    # Within one window: the split sibling gets the pane focus.
    sibling = new_pane(mytty, "split", tab, "down")
    assert geometry(mytty)[sibling]["pane_active"] is False
    assert mytty.ctl("focus", sibling).json == {"type": "ok"}
    g = geometry(mytty)
    assert g[sibling]["active"] and not g[tab]["pane_active"]
    assert mytty.ctl("focus", first).json == {"type": "ok"}
    assert geometry(mytty)[first]["active"]


def test_close_pane(mytty: Mytty) -> None:
    first = mytty.first_pane()
    pane = new_pane(mytty, "split", first, "right")
    tmux_id = geometry(mytty)[pane]["tmux"]
    assert mytty.ctl("close-pane", pane).json == {"type": "ok"}
    assert tmux_id not in mytty.tmux("list-panes", "-a", "-F", "#{pane_id}").split()
    assert set(by_id(mytty)) == {first}
    assert mytty.ctl("close-pane", pane).code == "pane-not-found"
    # Closing a tab's only pane closes the tab.
    tab = new_pane(mytty, "new-tab")
    window = geometry(mytty)[tab]["window"]
    assert mytty.ctl("close-pane", tab).json == {"type": "ok"}
    assert window not in mytty.tmux("list-windows", "-a", "-F", "#{window_id}").split()


# -- every pane command answers pane-not-found for an unknown pane ---------------------------------
PANE_COMMANDS = [
    ["split", "{p}"],
    ["split", "{p}", "left"],
    ["send", "{p}", "text"],
    ["send", "{p}", "text", "--enter"],
    ["send-key", "{p}", "escape"],
    ["read", "{p}"],
    ["focus", "{p}"],
    ["close-pane", "{p}"],
    ["status", "note", "--pane", "{p}"],
    ["status", "--clear", "--pane", "{p}"],
]


@pytest.mark.parametrize("pane", [UNKNOWN, UNKNOWN.lower(), "not-a-uuid", ""])
def test_unknown_pane_is_pane_not_found_for_every_pane_command(
    shared_mytty: Mytty, pane: str
) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    for template in PANE_COMMANDS:
        argv = [a.format(p=pane) for a in template]
        # An empty --pane means "no pane given" (then MYTTY_SURFACE_ID, else a usage error).
        expected = "usage" if argv[0] == "status" and not pane else "pane-not-found"
        assert mytty.ctl(*argv).code == expected, argv


def test_key_is_checked_before_the_pane(shared_mytty: Mytty) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    first = mytty.first_pane()
    # (pageup was refused here before issue 8; it is a tmux key now, PPage.)
    assert mytty.ctl("send-key", UNKNOWN, "pagedownup").code == "invalid-key"
    assert mytty.ctl("send-key", first, "pagedownup").code == "invalid-key"
    assert mytty.ctl("send-key", first, "ab").code == "invalid-key"
    assert mytty.ctl("send-key", first, "").code == "invalid-key"


@pytest.mark.parametrize(
    "request_obj",
    [
        {"type": "send", "paneID": "{p}", "text": "x", "pressEnter": "yes"},
        {"type": "send", "paneID": "{p}", "text": 5},
        {"type": "send", "text": "x"},
        {"type": "sendKey", "paneID": "{p}", "key": "a", "modifiers": "control"},
        {"type": "sendKey", "paneID": "{p}", "key": "a", "modifiers": [1]},
        {"type": "read"},
        {"type": "read", "paneID": None},
        {"type": "focus", "paneID": ["x"]},
        {"type": "closePane", "paneID": {"rawValue": 3}},
        {"type": "setPaneStatus", "paneID": "{p}", "status": 5},
    ],
)
def test_ill_typed_fields_are_invalid_request(
    shared_mytty: Mytty, request_obj: dict[str, Any]
) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    first = mytty.first_pane()
    obj = json.loads(json.dumps(request_obj).replace("{p}", first))
    reply = mytty.request(obj)
    assert reply["type"] == "failure" and reply["code"] == "invalid-request", reply


# -- status -------------------------------------------------------------------------------------
def test_status_note_appears_in_list_only_while_set(mytty: Mytty) -> None:
    first = mytty.first_pane()
    other = new_pane(mytty, "split", first, "right")
    assert mytty.ctl("status", "running tests", "--pane", first).json == {"type": "ok"}
    listed = by_id(mytty)
    assert listed[first]["statusNote"] == "running tests"
    assert "statusNote" not in listed[other]
    assert set(listed[other]) - ADDED_KEYS == PANE_KEYS
    # The pane defaults to the caller's own (MYTTY_SURFACE_ID), as inside a pane.
    own = {"MYTTY_SURFACE_ID": other}
    assert mytty.ctl("status", "phase 2 ✓", env=own).json == {"type": "ok"}
    assert by_id(mytty)[other]["statusNote"] == "phase 2 ✓"
    longest = "\U0001f600" * 100  # 100 scalars, 400 bytes
    assert mytty.ctl("status", longest, "--pane", first).json == {"type": "ok"}
    assert by_id(mytty)[first]["statusNote"] == longest
    assert mytty.ctl("status", "--clear", env=own).json == {"type": "ok"}
    listed = by_id(mytty)
    assert "statusNote" not in listed[other] and listed[first]["statusNote"] == longest
    assert mytty.ctl("status", "--clear", "--pane", first).json == {"type": "ok"}
    assert all("statusNote" not in p for p in mytty.panes())
    # Clearing twice is fine.
    assert mytty.ctl("status", "--clear", "--pane", first).json == {"type": "ok"}


@pytest.mark.parametrize("status", ["x" * 101, "", "two\nlines", "tab\t", "zwj\u200dx", "\x1b[31m"])
def test_invalid_status_is_refused_by_the_server_too(shared_mytty: Mytty, status: str) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    first = mytty.first_pane()
    reply = mytty.request({"type": "setPaneStatus", "paneID": first, "status": status})
    assert reply["type"] == "failure" and reply["code"] == "invalid-status"
    assert "statusNote" not in by_id(mytty)[first]
    # Via the CLI the same text never reaches the controller, with the same code.
    assert mytty.ctl("status", status, "--pane", first).code == "invalid-status"


def test_status_null_clears(mytty: Mytty) -> None:
    first = mytty.first_pane()
    mytty.ctl("status", "busy", "--pane", first).ok()
    reply = mytty.request({"type": "setPaneStatus", "paneID": first, "status": None})
    assert reply == {"type": "ok"}
    assert "statusNote" not in by_id(mytty)[first]


def test_status_of_a_closed_pane_is_gone(mytty: Mytty) -> None:
    first = mytty.first_pane()
    pane = new_pane(mytty, "split", first, "down")
    mytty.ctl("status", "about to go", "--pane", pane).ok()
    mytty.ctl("close-pane", pane).ok()
    assert mytty.ctl("status", "again", "--pane", pane).code == "pane-not-found"
    assert all("statusNote" not in p for p in mytty.panes())


def test_pane_commands_return_ok_shapes(mytty: Mytty) -> None:
    first = mytty.first_pane()
    assert mytty.ctl("send", first, "").json == {"type": "ok"}
    assert mytty.ctl("send-key", first, "space").json == {"type": "ok"}
    assert mytty.ctl("focus", first).json == {"type": "ok"}


def test_new_tab_starts_in_the_active_panes_directory(
    mytty: Mytty, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = tmp_path_factory.mktemp("tabcwd")
    first = mytty.first_pane()
    # The first pane is the active pane of the only session; move its shell elsewhere.
    mytty.tmux("send-keys", "-t", mytty.tmux_id(first), f"cd {target}", "Enter")
    wait_until(
        lambda: any(
            p["paneID"] == first and p["workingDirectory"] == str(target) for p in mytty.panes()
        ),
        message="the cd to show in list",
    )
    tab = mytty.ctl("new-tab", "--command", "pwd").json["paneID"]
    mytty.wait_for_text(tab, str(target))
