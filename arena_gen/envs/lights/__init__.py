"""Turn On Lights: a hidden Boolean dependency network between bulbs; light them all.

Versions (a game file is frozen once released; ``_vN`` in a file name is the registry version
that introduced it):

- v1: :mod:`.game_v1`, the first release's presets, and the released-data importer.
- v2: the same game; calibrated presets, the learner as heuristic, the with-rules planner.
- v3: the same game; presets of 3-literal conditions and a 50-turn Lite
  (:mod:`.sampler_v3`); ladder format 2 with the model-free sweep rung, the version-space
  learner as heuristic and the #25 targets.
- v4: the same game and worlds; every task proves it resists model-free play (issue 38,
  :mod:`.sampler_v4`): the optimist and the hill-climber join the sweep as model-free rungs, a
  task any of them solves or the random policy solves with probability above 1 % (exact,
  :mod:`.random_bound`) is rejected, and the certificate records both.
- v5 (preview, issue 42): the same game; Lite is v4's, Challenge is paper-scale
  (:mod:`.sampler_v5`): 32-36 bulbs in hidden independent parts with ring-puzzle conditions,
  exact minimum >= 200 (the sum of the parts', :mod:`.parts`) in 1,000 turns.
- v6 (preview, issue 42's attack on v5): v5's game, sampler, verifier and proofs; the parallel
  chain learner (:mod:`.agents.parallel`) joins the ladder as the inductive rung ``parallel``
  beside the chain learner, and Challenge is re-tuned against it (:mod:`.sampler_v6`: 4 parts
  of 9-10 bulbs, exact minimum >= 270 in 1,000 turns).

v5 and v6 offer by name (``run --agent optimist``, on no ladder) the optimist that plays their
Challenge's 36-40 bulbs; the ladders of v4-v6 keep the rung their certificates recorded.
"""

from __future__ import annotations

from dataclasses import replace

from arena_gen.core.registry import EnvSpec, OdysseyProfile, Parts

part = Parts(__name__)

V1 = EnvSpec(
    name="lights", version=1, code=1, gym_name="TurnOnLights", package=__name__,
    game=part("game_v1:LightsGame"),
    sampler=part("sampler:sample"),
    public_again=part("sampler:public_again"),
    presets=part("sampler:PRESETS"),
    accept=part("sampler:accept"),
    verifier=part("verify:verify"),
    heuristic=part("agents.heuristic:LightsHeuristicAgent"),
    importer=part("importer:importer"),
    imported_draft=part("importer:derive"),
    released_floor=10,  # the released Lite data claims at least 10 steps for every task
    grammar=part("prompts:GRAMMAR"),
    fingerprint=part("fingerprint:SHAPE"),
    potential=part("potential:potential"),
    adversary=part("adversary:KIT"),
    # The reference harness: max_steps 200, every valid step's history kept.
    odyssey=OdysseyProfile(steps=200, show_feedback=True, window=None,
                           prompt=part("odyssey:PROMPT"), reply=part("odyssey:reply")),
    # Seconds per task on one core (benchmarks/README.md): they order work, never bytes.
    build_seconds={"lite": 0.14, "challenge": 6.8},
    verify_seconds={"lite": 0.001, "challenge": 0.35},
    default_suites=("lite", "challenge"),
)

V2 = replace(
    V1, version=2,
    presets=part("sampler:PRESETS_V2"),
    heuristic=part("agents.learner:LightsLearnerAgent"),
    planner=part("agents.planner:LightsPlannerAgent"),
    calibration=part("sampler:CALIBRATION"),
    importer=None, imported_draft=None, released_floor=None,
)

V3 = replace(
    V2, version=3, ladder_version=2,
    presets=part("sampler_v3:PRESETS"),
    calibration=part("sampler_v3:CALIBRATION"),
    heuristic=part("agents.version_space:LightsVersionSpaceAgent"),
    model_free={"sweep": part("agents.sweep:LightsSweepAgent")},
    levels=part("levels_v3:LEVELS"),
    # By name only (``run --agent prior_aware``), on no ladder: certificates do not change.
    agents={"prior_aware": part("agents.prior:LightsPriorAgent"),
            "prior_sequential": part("agents.sequential:LightsSequentialAgent")},
)

V4 = replace(
    V3, version=4,
    presets=part("sampler_v4:PRESETS"),
    calibration=part("sampler_v4:CALIBRATION"),
    model_free={"sweep": part("agents.sweep:LightsSweepAgent"),
                "optimist": part("agents.optimist:LightsOptimistV4Agent"),
                "climber": part("agents.optimist:LightsClimberAgent")},
    random_bound=part("random_bound:random_bound"),
    # Ladder format 3: each rung's knowledge curve in the certificate.
    ladder_version=3,
)

V5 = replace(
    V4, version=5,
    presets=part("sampler_v5:PRESETS"),
    sampler=part("sampler_v5:sample"),
    accept=part("sampler_v5:accept"),
    calibration=part("sampler_v5:CALIBRATION"),
    verifier=part("verify_v5:verify"),
    planner=part("agents.planner:LightsPartsPlannerAgent"),
    heuristic=part("agents.chains:LightsChainLearnerAgent"),
    random_bound=part("parts:random_bound"),
    # The prior-aware learner knows v3/v4's generator, not the parts of v5's Challenge. By name
    # (``run --agent optimist``; on no ladder), the optimist that plays 36-40 bulbs: the
    # ladder's rung stays v4's, which fails there (the released certificates record it).
    agents={"optimist": part("agents.optimist:LightsOptimistAgent")},
    build_seconds={"lite": 0.14, "challenge": 10.0},
    verify_seconds={"lite": 0.001, "challenge": 1.0},
    preview=True,
)

V6 = replace(
    V5, version=6,
    presets=part("sampler_v6:PRESETS"),
    calibration=part("sampler_v6:CALIBRATION"),
    baselines={"parallel": part("agents.parallel:LightsParallelLearnerAgent")},
    build_seconds={"lite": 0.14, "challenge": 2.0},
)

SPECS = (V1, V2, V3, V4, V5, V6)
