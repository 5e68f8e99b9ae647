"""Verifiers: prove tasks solvable and measure exact minima; replay witnesses through the env."""
