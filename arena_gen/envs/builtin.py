"""Registration of the built-in envs (imported lazily by the registry on first use)."""

from __future__ import annotations

from ..core.registry import EnvSpec, register

register(EnvSpec(
    name="lights", version=1, code=1, gym_name="TurnOnLights",
    env="arena_gen.envs.lights:LightsEnv",
    sampler="arena_gen.generator.lights:sample",
    presets="arena_gen.generator.lights:PRESETS",
    accept="arena_gen.generator.lights:accept",
    verifier="arena_gen.verifiers.lights:verify",
    judge="arena_gen.scoring.judges.lights:judge",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.lights_heuristic:LightsHeuristicAgent",
    importer="arena_gen.generator.lights_import:importer",
))

register(EnvSpec(
    name="trading", version=1, code=2, gym_name="AITrading",
    env="arena_gen.envs.trading:TradingEnv",
    sampler="arena_gen.generator.trading:sample",
    presets="arena_gen.generator.trading:PRESETS",
    accept="arena_gen.generator.trading:accept",
    verifier="arena_gen.verifiers.trading:verify",
    judge="arena_gen.scoring.judges.trading:judge",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.trading_heuristic:TradingHeuristicAgent",
    importer="arena_gen.generator.trading_import:importer",
    extras={"replay_check": "arena_gen.verifiers.trading:replay_check"},
))

register(EnvSpec(
    name="energy", version=1, code=3, gym_name="EnergyDispatch",
    env="arena_gen.envs.energy:EnergyEnv",
    sampler="arena_gen.generator.energy:sample",
    presets="arena_gen.generator.energy:PRESETS",
    accept="arena_gen.generator.energy:accept",
    verifier="arena_gen.verifiers.energy:verify",
    judge="arena_gen.scoring.judges.energy:judge",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.energy_heuristic:EnergyHeuristicAgent",
    importer="arena_gen.generator.energy_import:importer",
    extras={"replay_check": "arena_gen.verifiers.energy:replay_check"},
))

register(EnvSpec(
    name="repo", version=1, code=4, gym_name="RepoSystem",
    env="arena_gen.envs.repo:RepoEnv",
    sampler="arena_gen.generator.repo:sample",
    presets="arena_gen.generator.repo:PRESETS",
    accept="arena_gen.generator.repo:accept",
    verifier="arena_gen.verifiers.repo:verify",
    judge="arena_gen.scoring.judges.repo:judge",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.repo_heuristic:RepoHeuristicAgent",
))
