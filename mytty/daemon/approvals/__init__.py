"""The approvals broker: agents' permission requests decided by rules, people and leads.

:mod:`.broker` (requests from the event socket, holds, answers, the audit), :mod:`.delivery`
(an answer typed into the agent's own dialog, after checking the screen), :mod:`.callers` (who
is asking, from the caller's process ancestry), :mod:`.hook_timeouts` (how long the installed
hook may wait), :mod:`.rules_file` (``--always`` writes a rule into config.toml). The rules
themselves are pure: :mod:`mytty.core.approvals`.
"""
