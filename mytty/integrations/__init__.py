"""Provider hook installers."""
