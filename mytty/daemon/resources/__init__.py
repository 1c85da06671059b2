"""The machine's and the workers' resources: memory, CPU, the per-worker memory cap."""
