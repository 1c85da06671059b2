"""The two Unix socket servers and the control request router."""
