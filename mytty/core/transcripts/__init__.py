"""The agents' own transcripts read as turns and token usage: one module per provider."""
