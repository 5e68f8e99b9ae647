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
))
