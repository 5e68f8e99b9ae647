"""The module inspect's ``inspect_ai`` entry point loads: importing it registers every object."""

from __future__ import annotations

from arena_gen.inspect import baseline, challenge, judge_scorer, lite, model_agent, suite

__all__ = ["baseline", "challenge", "judge_scorer", "lite", "model_agent", "suite"]
