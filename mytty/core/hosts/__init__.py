"""Other machines: host names and host-qualified ids, the ``[hosts]`` settings, and the OpenSSH
command lines mytty runs (pure; the CLI and the controller run them)."""
