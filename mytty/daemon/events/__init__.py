"""The event path: the event socket's handler, Codex placement and the events long poll."""
