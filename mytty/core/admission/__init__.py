"""Admission: which queued workers may start now (``[admission]`` in config.toml)."""
