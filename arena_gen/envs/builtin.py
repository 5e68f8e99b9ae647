"""Registration of the built-in envs (imported lazily by the registry on first use).

Each env's version is stated here and only here; an older version stays registered beside a
newer one for as long as released suites were built with it. A version with an ``importer``
names its ``imported_draft`` too: the draft an imported world gives, which the importer builds
with and ``verify`` re-derives imported tasks with.
"""

from __future__ import annotations

from ..core.registry import EnvSpec, register

register(EnvSpec(
    name="lights", version=1, code=1, gym_name="TurnOnLights",
    game="arena_gen.envs.lights:LightsGame",
    sampler="arena_gen.generator.lights:sample",
    presets="arena_gen.generator.lights:PRESETS",
    accept="arena_gen.generator.lights:accept",
    verifier="arena_gen.verifiers.lights:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.lights_heuristic:LightsHeuristicAgent",
    importer="arena_gen.generator.lights_import:importer",
    extras={"imported_draft": "arena_gen.generator.lights_import:derive"},
))

register(EnvSpec(  # v2: the same game; calibrated presets and the baseline ladder
    name="lights", version=2, code=1, gym_name="TurnOnLights",
    game="arena_gen.envs.lights:LightsGame",
    sampler="arena_gen.generator.lights:sample",
    presets="arena_gen.generator.lights:PRESETS_V2",
    accept="arena_gen.generator.lights:accept",
    verifier="arena_gen.verifiers.lights:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.lights_learner:LightsLearnerAgent",
    extras={"planner": "arena_gen.agents.lights_planner:LightsPlannerAgent",
            "calibration": "arena_gen.generator.lights:CALIBRATION"},
))

register(EnvSpec(
    name="trading", version=1, code=2, gym_name="AITrading",
    game="arena_gen.envs.trading:TradingGame",
    sampler="arena_gen.generator.trading:sample",
    presets="arena_gen.generator.trading:PRESETS",
    accept="arena_gen.generator.trading:accept",
    verifier="arena_gen.verifiers.trading:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.trading_heuristic:TradingHeuristicAgent",
    importer="arena_gen.generator.trading_import:importer",
    extras={"replay_check": "arena_gen.verifiers.trading:replay_check",
            "imported_draft": "arena_gen.generator.trading_import:derive"},
))

register(EnvSpec(
    name="trading", version=2, code=2, gym_name="AITrading",
    game="arena_gen.envs.trading:TradingGameV2",
    sampler="arena_gen.generator.trading2:sample",
    presets="arena_gen.generator.trading2:PRESETS",
    accept="arena_gen.generator.trading2:accept",
    verifier="arena_gen.verifiers.trading2:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.trading_heuristic:TradingHeuristicAgent",
    extras={
        "replay_check": "arena_gen.verifiers.trading:replay_check",
        "planner": "arena_gen.agents.trading_planner:TradingPlannerAgent",
        "calibration": "arena_gen.generator.trading2:CALIBRATION",
        # The paper's strategies that read only what an agent sees (optimal reads the world).
        "baselines": {s: f"arena_gen.agents.trading_strategies:{s.capitalize()}Agent"
                      for s in ("conservative", "progressive", "correlation", "rolling",
                                "ridge")},
    },
))

register(EnvSpec(
    name="energy", version=1, code=3, gym_name="EnergyDispatch",
    game="arena_gen.envs.energy:EnergyGame",
    sampler="arena_gen.generator.energy:sample",
    presets="arena_gen.generator.energy:PRESETS",
    accept="arena_gen.generator.energy:accept",
    verifier="arena_gen.verifiers.energy:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.energy_heuristic:EnergyHeuristicAgent",
    importer="arena_gen.generator.energy_import:importer",
    extras={"replay_check": "arena_gen.verifiers.energy:replay_check",
            "imported_draft": "arena_gen.generator.energy_import:derive"},
))

register(EnvSpec(
    name="energy", version=2, code=3, gym_name="EnergyDispatch",
    game="arena_gen.envs.energy:EnergyGameV2",
    sampler="arena_gen.generator.energy2:sample",
    presets="arena_gen.generator.energy2:PRESETS",
    accept="arena_gen.generator.energy2:accept",
    verifier="arena_gen.verifiers.energy2:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.energy_planner:EnergyInductivePlanner",
    extras={"replay_check": "arena_gen.verifiers.energy:replay_check",
            "planner": "arena_gen.agents.energy_planner:EnergyPlanner",
            "baselines": {"period_greedy": "arena_gen.agents.energy_heuristic:"
                                           "EnergyHeuristicAgent"},
            "calibration": "arena_gen.generator.energy2:CALIBRATION"},
))

register(EnvSpec(
    name="repo", version=1, code=4, gym_name="RepoSystem",
    game="arena_gen.envs.repo:RepoGame",
    sampler="arena_gen.generator.repo:sample",
    presets="arena_gen.generator.repo:PRESETS",
    accept="arena_gen.generator.repo:accept",
    verifier="arena_gen.verifiers.repo:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.repo_heuristic:RepoHeuristicAgent",
))

register(EnvSpec(
    name="repo", version=2, code=4, gym_name="RepoSystem",
    game="arena_gen.envs.repo2:RepoGameV2",
    sampler="arena_gen.generator.repo2:sample",
    presets="arena_gen.generator.repo2:PRESETS",
    accept="arena_gen.generator.repo2:accept",
    verifier="arena_gen.verifiers.repo2:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.repo2_heuristic:RepoV2HeuristicAgent",
    importer="arena_gen.generator.repo2_import:importer",
    extras={"imported_draft": "arena_gen.generator.repo2_import:derive"},
    preview=True,  # the reference-faithful game on re-expressed v1 worlds; v3 calibrates it
))

register(EnvSpec(
    name="repo", version=3, code=4, gym_name="RepoSystem",
    game="arena_gen.envs.repo2:RepoGameV2",  # v2's rules, unchanged: v3 is new worlds
    sampler="arena_gen.generator.repo3:sample",
    presets="arena_gen.generator.repo3:PRESETS",
    accept="arena_gen.generator.repo3:accept",
    verifier="arena_gen.verifiers.repo3:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.agents.repo2_heuristic:RepoV2HeuristicAgent",
    extras={"planner": "arena_gen.agents.repo_planner:RepoPlannerAgent",
            "calibration": "arena_gen.generator.repo3:CALIBRATION"},
))
