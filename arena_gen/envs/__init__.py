"""One simulator per env; each holds its env's only copy of the rules."""
