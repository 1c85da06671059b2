"""Jobs in the controller: the registry, resume, lead notices and inherited access."""
