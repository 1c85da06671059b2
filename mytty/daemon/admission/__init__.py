"""Admission, the controller's side: judging spawns, the queue, starting queued workers."""
