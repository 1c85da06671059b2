"""What a worker's tokens cost: a dated price table per model and the arithmetic over it."""
