"""The command line and other hosts: the SSH link (``link``), routing ``mytty-ctl`` commands
(``route``), ``mytty-ctl``'s hidden commands for the far end (``remote``) and the ``mytty
hosts`` noun. Imports nothing: ``mytty-ctl --host`` loads only the modules it needs."""
