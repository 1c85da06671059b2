"""What a job's processes use: memory and CPU of its pane's process tree (pure arithmetic)."""
