"""Panes in the controller: identity and capabilities, the pane service, the startup sweep."""
