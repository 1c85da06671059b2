"""Shell integration, the pure part: the per-pane event lines and the rc-file line."""
