"""Command-line front ends. Importing this package must stay cheap (mytty-ctl starts here)."""
