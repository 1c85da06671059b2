"""Driving a real agent CLI offline: loopback model mocks, a sandboxed home, a coverage run.

Used by ``mytty integrations verify`` and by the real-agent test tier. Sits beside ``daemon`` in
the layering: it may use core, protocol, integrations and tmux (for its throw-away server), and only ``cli`` imports it.
"""
