"""Agents by name: ``random``, ``oracle``, ``heuristic`` and ``planner`` (the with-rules planner
of the baseline ladder; per env), ``human``, ``llm``, and the
paper's six scripted trading strategies ``trading-optimal`` .. ``trading-ridge``."""

from __future__ import annotations

from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError

#: The paper's scripted trading strategies (``agents.trading_strategies.STRATEGIES``, kept here
#: as literals so naming an agent imports no numpy).
TRADING_STRATEGY_AGENTS = ("trading-optimal", "trading-conservative", "trading-progressive",
                           "trading-correlation", "trading-rolling", "trading-ridge")
AGENTS = ("random", "oracle", "heuristic", "planner", "llm", "human", *TRADING_STRATEGY_AGENTS)


def make_agent(name: str, env: str, config: dict[str, Any] | None = None,
               version: int | None = None) -> Any:
    """Build a fresh agent for one episode of ``env`` (at ``version``: the task's own)."""
    config = dict(config or {})
    if name == "random":
        from arena_gen.agents.random_agent import RandomAgent

        return RandomAgent()
    if name == "oracle":
        from arena_gen.agents.oracle import OracleAgent

        return OracleAgent()
    if name == "heuristic":
        spec = registry.get(env, version)
        if spec.heuristic is None:
            raise ArenaGenError(f"env {env!r} v{spec.version} has no heuristic agent registered")
        return spec.load("heuristic")()
    if name == "planner":
        spec = registry.get(env, version)
        if "planner" not in spec.extras:
            raise ArenaGenError(f"env {env!r} v{spec.version} has no with-rules planner "
                                f"registered")
        return spec.load("planner")()
    if name == "human":
        from arena_gen.agents.human import HumanAgent

        return HumanAgent(**config)
    if name == "llm":
        try:
            from arena_gen.agents.llm import LLMAgent
        except ImportError:
            raise ArenaGenError("the llm agent is not available in this version") from None
        return LLMAgent(**config)
    if name in TRADING_STRATEGY_AGENTS:
        if env != "trading":
            raise ArenaGenError(f"agent {name!r} plays only trading tasks, not {env!r}; "
                                f"select them with --env trading")
        from arena_gen.envs.trading.agents.strategies import TradingStrategyAgent

        return TradingStrategyAgent(name.removeprefix("trading-"))
    baselines = dict(registry.get(env, version).extras.get("baselines") or {})
    if name in baselines:  # a scripted inductive baseline of the env's ladder, by its rung name
        return registry.load_entry(baselines[name])()
    raise ArenaGenError(f"unknown agent {name!r}; choose one of {', '.join(AGENTS)}")
