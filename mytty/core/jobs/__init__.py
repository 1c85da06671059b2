"""Agent jobs, the pure part: the tracker, how a worker is launched, and the stored record."""
