"""Worktrees in the controller: create, record, probe with git, clean up."""
