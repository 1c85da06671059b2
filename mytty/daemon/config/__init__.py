"""config.toml in the controller: reading it and re-reading it when saved."""
