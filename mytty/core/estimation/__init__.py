"""Native run estimation, the pure part: which agent a process is, epochs and turns."""
