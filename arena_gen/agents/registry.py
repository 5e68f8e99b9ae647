"""Agents by name: ``random``, ``oracle``, ``heuristic`` and ``planner`` (the env's inductive
heuristic and with-rules planner of the baseline ladder), ``human``, ``llm``, every rung name of
an env's ladder (its spec's inductive ``baselines`` and ``model_free`` rungs, e.g. lights'
``sweep``), and the agents an env offers by name (its spec's ``agents``, e.g. the paper's
scripted trading strategies ``trading-optimal`` .. ``trading-ridge``)."""

from __future__ import annotations

from typing import Any

from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError

#: The agents every env has (``heuristic`` and ``planner`` where the env registers one).
GENERIC_AGENTS = ("random", "oracle", "heuristic", "planner", "llm", "human")


def named_agents(spec: registry.EnvSpec) -> list[str]:
    """The names one env version plays beyond the generic agents: its offered agents, then its
    ladder's inductive baselines and model-free rungs (read from the spec, no import)."""
    return list(dict.fromkeys([*spec.agents, *spec.baselines, *spec.model_free]))


def env_agents() -> dict[str, list[str]]:
    """The agents envs offer by name (rungs included) -> the envs offering each."""
    found: dict[str, list[str]] = {}
    for spec in registry.all_specs():
        for name in named_agents(spec):
            if spec.name not in found.setdefault(name, []):
                found[name].append(spec.name)
    return found


def agent_names() -> list[str]:
    """Every name ``--agent`` accepts (the generic agents, then the envs' named agents)."""
    return [*GENERIC_AGENTS, *(n for n in env_agents() if n not in GENERIC_AGENTS)]


def available(spec: registry.EnvSpec) -> list[str]:
    """The names an env version plays: the generic agents it has, then its named ones."""
    generic = [n for n in GENERIC_AGENTS if n not in ("heuristic", "planner") or spec.has(n)]
    return [*generic, *(n for n in named_agents(spec) if n not in generic)]


def make_agent(name: str, env: str, config: dict[str, Any] | None = None,
               version: int | None = None) -> Any:
    """Build a fresh agent for one episode of ``env`` (at ``version``: the task's own)."""
    config = dict(config or {})
    if name == "random":
        from arena_gen.agents.random_agent import RandomAgent

        return RandomAgent()
    if name == "human":
        from arena_gen.agents.human import HumanAgent

        return HumanAgent(**config)
    if name == "llm":
        try:
            from arena_gen.agents.llm import LLMAgent
        except ImportError:
            raise ArenaGenError("the llm agent is not available in this version") from None
        return LLMAgent(**config)
    spec = registry.get(env, version)
    if name == "oracle":
        if spec.oracle is not None:
            return spec.load("oracle")()
        from arena_gen.agents.oracle import OracleAgent

        return OracleAgent()
    if name in ("heuristic", "planner"):
        if not spec.has(name):
            what = "heuristic agent" if name == "heuristic" else "with-rules planner"
            raise ArenaGenError(f"env {env!r} v{spec.version} has no {what} registered")
        return spec.load(name)()
    if name in spec.agents:
        return registry.resolve(spec.agents[name])()
    if name in spec.baselines:  # a scripted inductive baseline of the env's ladder, by rung name
        return registry.resolve(spec.baselines[name])()
    if name in spec.model_free:  # a model-free rung of the env's ladder, by rung name
        return registry.resolve(spec.model_free[name])()
    owners = env_agents().get(name)
    if owners and env in owners:  # offered by other versions of this env
        versions = ", ".join(f"v{s.version}" for s in registry.all_specs()
                             if s.name == env and name in named_agents(s))
        raise ArenaGenError(f"agent {name!r} plays {env} {versions} tasks, not "
                            f"v{spec.version}; its agents: {', '.join(available(spec))}")
    if owners:
        raise ArenaGenError(f"agent {name!r} plays only {' and '.join(owners)} tasks, not "
                            f"{env!r}; select them with --env {owners[0]} ({env} "
                            f"v{spec.version}'s agents: {', '.join(available(spec))})")
    raise ArenaGenError(f"unknown agent {name!r} for {env} v{spec.version}; its agents: "
                        f"{', '.join(available(spec))}")
