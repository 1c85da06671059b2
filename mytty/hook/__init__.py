"""mytty-agent-hook: stdlib + core + protocol only (it runs on every agent tool call)."""
