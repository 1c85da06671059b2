"""The only package that talks to tmux."""
