"""Host names and host-qualified ids: ``build1:<id>`` names an id of host ``build1``.

An id that leaves its host (a reply relayed by ``mytty-ctl --host``, a remote item in the
popup or in ``mytty attention --hosts all``) is qualified with the host's name, and a
qualified id given to any command routes that command to its host. Mytty's own ids are
UUIDs, which hold no ``:``, so the first ``:`` of a qualified id always ends the host name.

Stdlib only and cheap: ``mytty-ctl`` reads it on every call that names a host.
"""

from __future__ import annotations

#: Between the host name and the id.
SEPARATOR = ":"
#: The longest host name (it is part of socket paths, which the OS limits to 107 bytes).
MAX_NAME = 32
#: Reply keys whose values are ids of the replying host: bare strings or ``{"rawValue": …}``
#: (``id``: a permission request's, the only other id on the control socket).
ID_KEYS = frozenset({"paneID", "jobID", "runID", "anchorPaneID", "id"})
#: Reply keys holding a list of such ids.
ID_LIST_KEYS = frozenset({"jobIDs"})

_NAME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_NAME_REST = _NAME_FIRST | frozenset("-_.")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a host (None: it can). A name is 1 to 32 ASCII letters,
    digits, ``-``, ``_`` and ``.``, starting with a letter or digit.

    >>> name_problem("build1") is None
    True
    >>> name_problem("a:b")
    "a host name is letters, digits, '-', '_' and '.', starting with a letter or digit (got 'a:b')"
    """
    if not name:
        return "a host name must not be empty"
    if len(name) > MAX_NAME:
        return f"a host name has at most {MAX_NAME} characters (got {len(name)})"
    if name[0] not in _NAME_FIRST or any(c not in _NAME_REST for c in name):
        return (
            "a host name is letters, digits, '-', '_' and '.', starting with a letter or "
            f"digit (got {name!r})"
        )
    return None


def qualify(host: str, value: str) -> str:
    """``value`` as an id of ``host`` (an already qualified one is left alone).

    >>> qualify("b", "0F1E")
    'b:0F1E'
    >>> qualify("b", "b:0F1E")
    'b:0F1E'
    """
    return value if split(value)[0] is not None else f"{host}{SEPARATOR}{value}"


def split(text: str) -> tuple[str | None, str]:
    """(host, bare id) of a possibly qualified id; host None when ``text`` names none.

    >>> split("build1:0F1E")
    ('build1', '0F1E')
    >>> split("0F1E")
    (None, '0F1E')
    """
    head, sep, rest = text.partition(SEPARATOR)
    if not sep or name_problem(head) is not None:
        return None, text
    return head, rest


def qualify_reply(value: object, host: str) -> object:
    """A copy of a reply with every id under :data:`ID_KEYS` qualified with ``host``."""
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, item in value.items():
            if key in ID_KEYS:
                out[key] = _qualify_id(item, host)
            elif key in ID_LIST_KEYS and isinstance(item, list):
                out[key] = [_qualify_id(one, host) for one in item]
            else:
                out[key] = qualify_reply(item, host)
        return out
    if isinstance(value, list):
        return [qualify_reply(item, host) for item in value]
    return value


def _qualify_id(value: object, host: str) -> object:
    if isinstance(value, str) and value:
        return qualify(host, value)
    if isinstance(value, dict) and isinstance(value.get("rawValue"), str):
        return {**value, "rawValue": qualify(host, value["rawValue"])}
    return value
