"""The pure rules of other hosts: names and qualified ids, ``[hosts]``, ssh's command lines and
failures, the handshake, and combining waits over several hosts."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core import codes, vocab
from mytty.core.hosts import ids, links, ssh, waits
from mytty.core.hosts.config import HostSpec, HostsSettings, hosts_from
from mytty.core.jobs import tracker

NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}", fullmatch=True)
UUIDS = st.uuids().map(lambda u: str(u).upper())


# -- names and qualified ids ------------------------------------------------------------------
@given(NAMES, UUIDS)
def test_a_qualified_id_splits_back(name: str, uuid: str) -> None:
    assert ids.name_problem(name) is None
    assert ids.split(ids.qualify(name, uuid)) == (name, uuid)
    assert ids.qualify(name, ids.qualify(name, uuid)) == ids.qualify(name, uuid)


@given(UUIDS)
def test_a_bare_uuid_names_no_host(uuid: str) -> None:
    assert ids.split(uuid) == (None, uuid)


@pytest.mark.parametrize("bad", ["", "a:b", "-x", ".x", "a b", "é", "x" * 33, "a/b"])
def test_bad_host_names(bad: str) -> None:
    assert ids.name_problem(bad) is not None
    if ":" not in bad:
        assert ids.split(f"{bad}:0F1E")[0] is None  # such a prefix is not a host


def test_qualify_reply_qualifies_every_id_of_a_snapshot_and_nothing_else() -> None:
    reply = {
        "type": "agentWaitResult",
        "job": {
            "jobID": {"rawValue": "J"},
            "paneID": {"rawValue": "P"},
            "runID": None,
            "sessionID": "S",
            "label": "L",
        },
        "jobs": [{"jobID": {"rawValue": "J"}, "runID": {"rawValue": "R"}}],
        "panes": [{"paneID": "P2", "windowID": "$1", "tabID": "@2"}],
        "timedOut": False,
    }
    got = ids.qualify_reply(reply, "b")
    assert got == {
        "type": "agentWaitResult",
        "job": {
            "jobID": {"rawValue": "b:J"},
            "paneID": {"rawValue": "b:P"},
            "runID": None,
            "sessionID": "S",
            "label": "L",
        },
        "jobs": [{"jobID": {"rawValue": "b:J"}, "runID": {"rawValue": "b:R"}}],
        "panes": [{"paneID": "b:P2", "windowID": "$1", "tabID": "@2"}],
        "timedOut": False,
    }
    assert reply["job"] == {  # a copy: the original is untouched
        "jobID": {"rawValue": "J"},
        "paneID": {"rawValue": "P"},
        "runID": None,
        "sessionID": "S",
        "label": "L",
    }


def test_link_paths_are_short_and_per_home() -> None:
    a = links.link_dir(1000, "/home/me/.config/mytty")
    b = links.link_dir(1000, "/home/me/other")
    assert a != b and a.startswith("/tmp/mytty-ssh-1000/")
    longest = links.forward_socket(a, "x" * ids.MAX_NAME)
    assert len(longest.encode()) < 100  # Unix socket paths: 107 bytes
    assert len(links.control_path(a).replace("%C", "f" * 40)) < 100


# -- [hosts] -------------------------------------------------------------------------------------
def test_hosts_table() -> None:
    settings, warnings = hosts_from(
        {
            "connect_timeout_seconds": 3,
            "ssh_command": "ssh -F /tmp/cfg",
            "build1": {"ssh": "me@build1", "ssh_options": ["Port=2222", "User=x"]},
            "gpu": {"ssh": "gpu", "mytty_ctl": "/opt/mytty/bin/mytty-ctl", "transport": "exec"},
        }
    )
    assert warnings == []
    assert settings.connect_timeout == 3.0
    assert settings.ssh_command == ("ssh", "-F", "/tmp/cfg")
    assert settings.get("build1") == HostSpec("build1", "me@build1", ("Port=2222", "User=x"))
    gpu = settings.get("gpu")
    assert gpu is not None and gpu.transport == "exec" and gpu.mytty_ctl.startswith("/opt")
    assert settings.names() == ["build1", "gpu"]


@pytest.mark.parametrize(
    ("table", "warned"),
    [
        ({"b": {"ssh": "-oProxyCommand=x"}}, "one destination word"),
        ({"b": {"ssh": ""}}, "ssh must be the destination"),
        ({"b": {}}, "ssh must be the destination"),
        ({"a:b": {"ssh": "x"}}, "host name"),
        ({"b": {"ssh": "x", "ssh_options": ["NoEquals"]}}, "KEY=VALUE"),
        ({"b": {"ssh": "x", "colour": "red"}}, "unknown key 'colour'"),
        ({"b": {"ssh": "x", "transport": "carrier-pigeon"}}, "forward or exec"),
        ({"connect_timeout_seconds": 0}, "between 1 and 300"),
        ({"connect_timeout_seconds": True}, "number of seconds"),
        ({"ssh_command": ""}, "ssh_command"),
        ({"stray": 3}, "a host is a table"),
    ],
)
def test_hosts_table_warnings(table: dict[str, object], warned: str) -> None:
    settings, warnings = hosts_from(table)
    assert any(warned in w for w in warnings), warnings
    assert settings.connect_timeout == 10.0  # a bad setting keeps its default
    bad = {"ssh": "x", "ssh_options": ["NoEquals"]}
    if table.get("b") == bad:  # a bad option is dropped, the host stays
        assert settings.get("b") == HostSpec("b", "x")


# -- ssh command lines and failures --------------------------------------------------------------
SPEC = HostSpec("b", "me@build1", ("Port=2222",), "mytty-ctl")
SETTINGS = HostsSettings(connect_timeout=4, ssh_command=("ssh", "-F", "/cfg"), hosts=(SPEC,))


def test_hello_argv_puts_the_hosts_options_first_and_quotes_nothing_it_should_not() -> None:
    argv = ssh.hello_argv(SETTINGS, SPEC, "/tmp/mytty-ssh-0/abcd")
    assert argv[:3] == ["ssh", "-F", "/cfg"]
    assert argv[3:5] == ["-o", "Port=2222"]  # ssh keeps the first value of each option
    assert "ControlPath=/tmp/mytty-ssh-0/abcd/%C" in argv
    assert "BatchMode=yes" in argv and "ConnectTimeout=4" in argv
    assert "ControlMaster=auto" in argv and "StreamLocalBindUnlink=yes" in argv
    assert argv[-3:] == ["me@build1", "--", "mytty-ctl __hello"]


def test_forward_argv() -> None:
    argv = ssh.forward_argv(
        SETTINGS, SPEC, "/d", "/d/b.sock", "/home/me/.config/mytty/control.sock"
    )
    assert argv[-5:] == [
        "-O",
        "forward",
        "-L",
        "/d/b.sock:/home/me/.config/mytty/control.sock",
        "me@build1",
    ]


def test_remote_words_quote_the_words_not_the_command() -> None:
    spec = HostSpec("b", "x", mytty_ctl="env MYTTY_HOME=/srv/m mytty-ctl")
    assert (
        ssh.remote_words(spec, "__relay", "a b") == "env MYTTY_HOME=/srv/m mytty-ctl __relay 'a b'"
    )


@pytest.mark.parametrize(
    ("code", "stderr", "want"),
    [
        (None, "", codes.HOST_UNREACHABLE),
        (255, "ssh: connect to host 1.2.3.4 port 22: Connection refused\n", codes.HOST_UNREACHABLE),
        (255, "ssh: Could not resolve hostname nope: Name or service not known\n", codes.HOST_UNREACHABLE),
        (255, "me@build1: Permission denied (publickey).\n", codes.HOST_AUTH_FAILED),
        (255, "Host key verification failed.\n", codes.HOST_AUTH_FAILED),
        (127, "bash: line 1: mytty-ctl: command not found\n", codes.HOST_INCOMPATIBLE),
        (1, "mytty-ctl: usage: unknown command '__hello'; run mytty-ctl --help\n", codes.HOST_INCOMPATIBLE),
    ],
)  # fmt: skip
def test_classify_failure(code: int | None, stderr: str, want: str) -> None:
    got, message = ssh.classify_failure("b", SPEC, code, stderr, 4.0)
    assert got == want
    assert message.startswith("host b (me@build1)")
    if stderr:
        assert stderr.strip().splitlines()[-1].strip() in message  # ssh's own words
    else:
        assert "within 4 s" in message


def test_ssh_message_skips_noise() -> None:
    text = "Warning: Permanently added 'x' (ED25519) to the list of known hosts.\nreal reason\n"
    assert ssh.ssh_message(text) == "real reason"


def test_hello_round_trip_and_mismatches() -> None:
    hello = ssh.Hello("0.1.0", "/home/me/.config/mytty/control.sock", "/opt/bin", None, True)
    parsed, problem = ssh.parse_hello("b", ssh.hello_text(hello))
    assert problem == "" and parsed is not None
    assert parsed.to_json() == hello.to_json()
    other = json.dumps({**hello.to_json(), "protocol": 99})
    parsed, problem = ssh.parse_hello("b", other)
    assert parsed is None and "protocol 99" in problem and "same mytty version" in problem
    parsed, problem = ssh.parse_hello("b", "__hello\n")
    assert parsed is None and "not mytty's" in problem


# -- waits over several hosts ------------------------------------------------------------------------
def test_satisfies_agrees_with_the_job_tracker() -> None:
    for state in vocab.JOB_STATES:
        for until in vocab.JOB_WAIT_CONDITIONS:
            job = tracker.AgentJob.__new__(tracker.AgentJob)
            object.__setattr__(job, "state", tracker.AgentJobState(state))
            want = tracker.satisfies(job, until)  # type: ignore[arg-type]
            assert waits.satisfies(state, until) == want, (state, until)


def test_deciding_follows_the_one_controller_rules() -> None:
    done, run = vocab.SUCCEEDED, vocab.RUNNING
    assert waits.deciding([run, done, done], "completed", "any") == (1, False)
    assert waits.deciding([done, done], "completed", "all") == (1, False)
    assert waits.deciding([done, run], "completed", "all") == (1, True)
    assert waits.deciding([run, run], "completed", "any") == (0, True)
