"""Judges, score policy, metrics and reports."""
