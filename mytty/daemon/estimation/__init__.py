"""Native run estimation in the controller: foreground agents, shell events, Cursor approvals."""
