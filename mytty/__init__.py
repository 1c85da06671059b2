"""mytty: a tmux-backed orchestration controller for AI coding agents.

This module must stay import-free: the hook helper and ``mytty-ctl`` start through it.
"""

__version__ = "0.1.0"
