"""Samplers (one per env), presets and the suite builder."""
