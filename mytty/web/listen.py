"""Where ``mytty web`` listens, and what that demands.

- ``--listen HOST:PORT`` (default ``127.0.0.1:8765``; IPv6 as ``[::1]:8765``; port 0 picks a
  free one). A host is *loopback* when it is ``localhost`` or an address of 127.0.0.0/8 or
  ``::1``; a name is loopback only when every address it resolves to is.
- Anything else (``0.0.0.0``, a private network's address, a host name) reaches other machines,
  so it needs ``--tls-cert`` and ``--tls-key``: without them ``mytty web`` refuses to start
  (``insecure-listen``); a phone's way in without TLS is an SSH tunnel to the loopback port.
- A loopback server answers only requests whose ``Host`` is a loopback name (``localhost``,
  ``127.0.0.1``, ``[::1]``, any port, so an SSH tunnel's own port works): a web page on another
  site whose name an attacker re-pointed at 127.0.0.1 (DNS rebinding) is refused before
  anything else. A TLS server leaves that to the certificate.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

from mytty.core.errors import ErrorCode, MyttyError

DEFAULT_LISTEN = "127.0.0.1:8765"


@dataclass(frozen=True, slots=True)
class Listen:
    host: str
    port: int
    loopback: bool

    def url(self, port: int, *, tls: bool) -> str:
        """The base URL a person opens (``port``: the one really bound)."""
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = socket.getfqdn() or "localhost"
        if ":" in host:
            host = f"[{host}]"
        return f"{'https' if tls else 'http'}://{host}:{port}"


def _address_is_loopback(text: str) -> bool | None:
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback one."""
    literal = _address_is_loopback(host)
    if literal is not None:
        return literal
    if host.lower() == "localhost":
        return True
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    addresses = {str(info[4][0]) for info in infos}
    return bool(addresses) and all(_address_is_loopback(a) for a in addresses)


def parse(text: str) -> Listen:
    """``HOST:PORT`` (``[V6]:PORT``) as a :class:`Listen`; ``usage`` when it is not one."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise MyttyError(ErrorCode.USAGE, f"--listen takes HOST:PORT (e.g. {DEFAULT_LISTEN})")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise MyttyError(ErrorCode.USAGE, "write an IPv6 address in brackets: [::1]:8765")
    return Listen(host, int(port_text), is_loopback(host))


def require_tls_where_needed(listen: Listen, cert: str | None, key: str | None) -> bool:
    """Whether to serve TLS; refuses a non-loopback address without a certificate."""
    if (cert is None) != (key is None):
        raise MyttyError(ErrorCode.USAGE, "--tls-cert and --tls-key go together")
    tls = cert is not None
    if not listen.loopback and not tls:
        raise MyttyError(
            ErrorCode.INSECURE_LISTEN,
            f"{listen.host} is reachable from other machines: give --tls-cert and --tls-key, "
            "or keep the default loopback address and reach it through an SSH tunnel "
            "(ssh -L 8765:127.0.0.1:8765 this-machine)",
        )
    return tls


def host_header_allowed(host_header: str | None, listen: Listen) -> bool:
    """Whether a request naming ``host_header`` may be served (see the module docstring)."""
    if not listen.loopback:
        return True
    if not host_header:
        return False
    name = host_header.strip()
    if name.startswith("["):
        name = name[1 : name.find("]")] if "]" in name else ""
    else:
        name = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
    return name.lower() == "localhost" or bool(_address_is_loopback(name))
