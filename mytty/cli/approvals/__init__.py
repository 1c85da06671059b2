"""The person's side of the approvals broker: ``mytty approvals`` (:mod:`.listing`) and
``mytty approve`` / ``mytty deny`` (:mod:`.answers`)."""

from mytty.cli.approvals.answers import approve_command, deny_command
from mytty.cli.approvals.listing import app

__all__ = ["app", "approve_command", "deny_command"]
