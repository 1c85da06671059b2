"""The agent run model, pure: ``table`` (the state machine), ``run`` (AgentRun, ApplyResult),
``book`` (RunBook, the reducer), ``subagents`` (folding subagents' events into their turn),
``synthesized`` (runSuperseded, startup sweep), ``retention`` and ``prune`` (what is kept, for
how long), and the books beside it: ``ledger``, ``notes``, ``snapshot``."""
