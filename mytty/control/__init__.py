"""One module per control command: its contract and its handler."""
