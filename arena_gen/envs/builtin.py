"""Registration of the built-in envs (imported lazily by the registry on first use).

Each env's version is stated here and only here; an older version stays registered beside a
newer one for as long as released suites were built with it. A version with an ``importer``
names its ``imported_draft`` too: the draft an imported world gives, which the importer builds
with and ``verify`` re-derives imported tasks with.
"""

from __future__ import annotations

from arena_gen.core.registry import EnvSpec, register

register(EnvSpec(
    name="lights", version=1, code=1, gym_name="TurnOnLights",
    game="arena_gen.envs.lights.game_v1:LightsGame",
    sampler="arena_gen.envs.lights.sampler:sample",
    presets="arena_gen.envs.lights.sampler:PRESETS",
    accept="arena_gen.envs.lights.sampler:accept",
    verifier="arena_gen.envs.lights.verify:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.lights.agents.heuristic:LightsHeuristicAgent",
    importer="arena_gen.envs.lights.importer:importer",
    extras={"imported_draft": "arena_gen.envs.lights.importer:derive"},
))

register(EnvSpec(  # v2: the same game; calibrated presets and the baseline ladder
    name="lights", version=2, code=1, gym_name="TurnOnLights",
    game="arena_gen.envs.lights.game_v1:LightsGame",
    sampler="arena_gen.envs.lights.sampler:sample",
    presets="arena_gen.envs.lights.sampler:PRESETS_V2",
    accept="arena_gen.envs.lights.sampler:accept",
    verifier="arena_gen.envs.lights.verify:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.lights.agents.learner:LightsLearnerAgent",
    extras={"planner": "arena_gen.envs.lights.agents.planner:LightsPlannerAgent",
            "calibration": "arena_gen.envs.lights.sampler:CALIBRATION"},
))

register(EnvSpec(
    name="trading", version=1, code=2, gym_name="AITrading",
    game="arena_gen.envs.trading.game_v1:TradingGame",
    sampler="arena_gen.envs.trading.sampler_v1:sample",
    presets="arena_gen.envs.trading.sampler_v1:PRESETS",
    accept="arena_gen.envs.trading.sampler_v1:accept",
    verifier="arena_gen.envs.trading.verify_v1:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.trading.agents.heuristic:TradingHeuristicAgent",
    importer="arena_gen.envs.trading.importer:importer",
    extras={"replay_check": "arena_gen.envs.trading.verify_v1:replay_check",
            "imported_draft": "arena_gen.envs.trading.importer:derive"},
))

register(EnvSpec(
    name="trading", version=2, code=2, gym_name="AITrading",
    game="arena_gen.envs.trading.game_v2:TradingGameV2",
    sampler="arena_gen.envs.trading.sampler_v2:sample",
    presets="arena_gen.envs.trading.sampler_v2:PRESETS",
    accept="arena_gen.envs.trading.sampler_v2:accept",
    verifier="arena_gen.envs.trading.verify_v2:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.trading.agents.heuristic:TradingHeuristicAgent",
    extras={
        "replay_check": "arena_gen.envs.trading.verify_v1:replay_check",
        "planner": "arena_gen.envs.trading.agents.planner:TradingPlannerAgent",
        "calibration": "arena_gen.envs.trading.sampler_v2:CALIBRATION",
        # The paper's strategies that read only what an agent sees (optimal reads the world).
        "baselines": {s: f"arena_gen.envs.trading.agents.strategies:{s.capitalize()}Agent"
                      for s in ("conservative", "progressive", "correlation", "rolling",
                                "ridge")},
    },
))

register(EnvSpec(
    name="energy", version=1, code=3, gym_name="EnergyDispatch",
    game="arena_gen.envs.energy.game_v1:EnergyGame",
    sampler="arena_gen.envs.energy.sampler_v1:sample",
    presets="arena_gen.envs.energy.sampler_v1:PRESETS",
    accept="arena_gen.envs.energy.sampler_v1:accept",
    verifier="arena_gen.envs.energy.verify_v1:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.energy.agents.heuristic:EnergyHeuristicAgent",
    importer="arena_gen.envs.energy.importer:importer",
    extras={"replay_check": "arena_gen.envs.energy.verify_v1:replay_check",
            "imported_draft": "arena_gen.envs.energy.importer:derive"},
))

register(EnvSpec(
    name="energy", version=2, code=3, gym_name="EnergyDispatch",
    game="arena_gen.envs.energy.game_v1:EnergyGame",
    sampler="arena_gen.envs.energy.sampler_v2:sample",
    presets="arena_gen.envs.energy.sampler_v2:PRESETS",
    accept="arena_gen.envs.energy.sampler_v2:accept",
    verifier="arena_gen.envs.energy.verify_v2:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.energy.agents.planner:EnergyInductivePlanner",
    extras={"replay_check": "arena_gen.envs.energy.verify_v1:replay_check",
            "planner": "arena_gen.envs.energy.agents.planner:EnergyPlanner",
            "baselines": {"period_greedy": "arena_gen.envs.energy.agents.heuristic:"
                                           "EnergyHeuristicAgent"},
            "calibration": "arena_gen.envs.energy.sampler_v2:CALIBRATION"},
))

register(EnvSpec(
    name="repo", version=1, code=4, gym_name="RepoSystem",
    game="arena_gen.envs.repo.game_v1:RepoGame",
    sampler="arena_gen.envs.repo.sampler_v1:sample",
    presets="arena_gen.envs.repo.sampler_v1:PRESETS",
    accept="arena_gen.envs.repo.sampler_v1:accept",
    verifier="arena_gen.envs.repo.verify_v1:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.repo.agents.heuristic_v1:RepoHeuristicAgent",
))

register(EnvSpec(
    name="repo", version=2, code=4, gym_name="RepoSystem",
    game="arena_gen.envs.repo.game_v2:RepoGameV2",
    sampler="arena_gen.envs.repo.sampler_v2:sample",
    presets="arena_gen.envs.repo.sampler_v2:PRESETS",
    accept="arena_gen.envs.repo.sampler_v2:accept",
    verifier="arena_gen.envs.repo.verify_v2:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.repo.agents.heuristic_v2:RepoV2HeuristicAgent",
    importer="arena_gen.envs.repo.importer:importer",
    extras={"imported_draft": "arena_gen.envs.repo.importer:derive"},
    preview=True,  # the reference-faithful game on re-expressed v1 worlds; v3 calibrates it
))

register(EnvSpec(
    name="repo", version=3, code=4, gym_name="RepoSystem",
    game="arena_gen.envs.repo.game_v2:RepoGameV2",  # v2's rules, unchanged: v3 is new worlds
    sampler="arena_gen.envs.repo.sampler_v3:sample",
    presets="arena_gen.envs.repo.sampler_v3:PRESETS",
    accept="arena_gen.envs.repo.sampler_v3:accept",
    verifier="arena_gen.envs.repo.verify_v3:verify",
    oracle="arena_gen.agents.oracle:OracleAgent",
    heuristic="arena_gen.envs.repo.agents.heuristic_v2:RepoV2HeuristicAgent",
    extras={"planner": "arena_gen.envs.repo.agents.planner:RepoPlannerAgent",
            "calibration": "arena_gen.envs.repo.sampler_v3:CALIBRATION"},
))
