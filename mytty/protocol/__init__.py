"""Wire codecs for the control and event sockets (stdlib json), framing and size limits."""
