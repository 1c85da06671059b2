"""``explain``: what the controller reads for it beyond the books (the builder is core/explain)."""
