"""Agents that play episodes: random, oracle, heuristic learners, LLM, human."""
