"""Reading the agents' transcripts in the controller: reader, usage and budgets, when to read."""
