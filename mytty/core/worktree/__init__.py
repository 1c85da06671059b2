"""Worktrees mytty created: their record and the rule for removing one."""
