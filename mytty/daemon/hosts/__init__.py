"""The controller and other hosts: one follower per ``[hosts.NAME]`` (``follower``), owned by
the hosts service (``service``), which the handlers' ``hosts`` command and the notification
router read."""
