"""A faster launcher for ``mytty-agent-hook`` than pip's console-script wrapper.

pip's wrapper runs the venv interpreter with ``site`` enabled: every ``.pth`` file in
site-packages is processed (setuptools' ``distutils-precedence.pth`` even imports a module) and
the user's ``PYTHON*`` variables apply. The hook needs none of that: it imports only the stdlib
and the ``mytty`` package. This launcher starts the interpreter with ``-I -S`` (isolated, no
``site``) and puts the directory holding the ``mytty`` package on ``sys.path`` itself.

The installer may write it next to (or instead of) the console script; the hook behaves the same.
"""

from __future__ import annotations

from mytty.core.quoting import shell_quote

#: Linux truncates a shebang line after 127 bytes on older kernels (255 since 5.1).
_MAX_SHEBANG_BYTES = 127

_BODY = """\
import sys
sys.path.insert(0, {parent!r})
from mytty.hook.main import main
sys.exit(main())
"""


def render_launcher(python_executable: str, package_parent: str) -> str:
    """The text of an executable launcher script for the hook helper.

    ``python_executable`` is the absolute interpreter path; ``package_parent`` is the directory
    that contains the ``mytty`` package (the repo root for an editable install, site-packages
    otherwise). When the interpreter path cannot sit in a shebang (whitespace, or too long), the
    script starts as ``/bin/sh`` and re-executes itself with the interpreter — the same
    polyglot trick pip uses, at the cost of one extra ``exec``.
    """
    if not python_executable.startswith("/"):
        raise ValueError("python_executable must be an absolute path")
    if not package_parent.startswith("/"):
        raise ValueError("package_parent must be an absolute path")
    body = _BODY.format(parent=package_parent)
    shebang = f"#!{python_executable} -IS"
    if len(shebang.encode("utf-8")) <= _MAX_SHEBANG_BYTES and not any(
        ch.isspace() for ch in python_executable
    ):
        return f"{shebang}\n{body}"
    # `'''exec' …` is a shell command for /bin/sh and the start of a string literal for Python.
    trampoline = f"#!/bin/sh\n'''exec' {shell_quote(python_executable)} -IS \"$0\" \"$@\"\n' '''\n"
    return trampoline + body
