"""Pure core: state machines and rules. Stdlib only, no I/O, no clock, no environment."""
