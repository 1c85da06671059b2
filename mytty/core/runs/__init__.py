"""The agent run model: the reducer and its books (ledger, notes, snapshot)."""
