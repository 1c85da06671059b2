"""``explain``: why mytty shows what it shows, built from the runs, the job and the evidence."""
