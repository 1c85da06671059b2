"""``mytty web``: a phone-sized web view of the agents, served by its own process.

The server is a client of the controller's control socket like the ``mytty`` command of the
same user (:mod:`mytty.web.control`): it never holds a pane's event capability and never reads
the controller's store. Its own state (paired sessions, pending pairing codes) lives in
``$MYTTY_HOME/web/`` (:mod:`mytty.web.state`). See docs/how-to/web-from-your-phone.md.
"""
