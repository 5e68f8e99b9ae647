"""Repo System: repair a simulated Python repository with pip and python commands under
hidden dependency rules.

Versions (a game file is frozen once released; ``_vN`` in a file name is the registry version
that introduced it):

- v1: :mod:`.game_v1`, its worlds and verifier (SAT/BMC).
- v2 (preview): :mod:`.game_v2`, the reference-faithful game on re-expressed v1 worlds, and
  the released-data importer.
- v3: v2's game unchanged on new, calibrated worlds (:mod:`.sampler_v3`), with the with-rules
  planner.
- v4: :mod:`.game_v4`, one message format for every run-time check, on v3's worlds
  with rule messages in that form and tighter presets (:mod:`.sampler_v4`); a model-free rung
  (:mod:`.agents.sweep`) and the inductive learner :mod:`.agents.heuristic_v3` (issue 25).
- v5: :mod:`.game_v5`, messages that give nothing away (conflicts stated from the installed
  side, hidden-rule decoys printed as a real check would print them), on v4's worlds with
  v5 presets (:mod:`.sampler_v5`); stronger model-free rungs (:mod:`.agents.climb`) and the
  learner :mod:`.agents.heuristic_v5` (issue 38).
- v6 (preview, issue 42): :mod:`.game_v6`, v5's rules; Lite is v5's, Challenge is paper-scale
  (:mod:`.sampler_v6`): 95-125 packages in 19-25 hidden independent ring-puzzle groups, exact
  minimum 401-527 (the groups' minima summed less 2(G - 1), :mod:`.groups`) in 1,000 turns;
  a group-wise planner and learner (:mod:`.agents.rings`).
"""

from __future__ import annotations

from dataclasses import replace

from arena_gen.core.registry import EnvSpec, OdysseyProfile, Parts

part = Parts(__name__)

V1 = EnvSpec(
    name="repo", version=1, code=4, gym_name="RepoSystem", package=__name__,
    game=part("game_v1:RepoGame"),
    sampler=part("sampler_v1:sample"),
    public_again=part("sampler_v1:public_again"),
    presets=part("sampler_v1:PRESETS"),
    accept=part("sampler_v1:accept"),
    verifier=part("verify_v1:verify"),
    heuristic=part("agents.heuristic_v1:RepoHeuristicAgent"),
    grammar=part("prompts:GRAMMAR"),
    fingerprint=part("fingerprint:SHAPE"),
    # The reference harness: max_steps 120, every step's history kept.
    odyssey=OdysseyProfile(steps=120, show_feedback=True, window=None,
                           prompt=part("odyssey:PROMPT")),
    build_seconds={"lite": 0.42, "challenge": 2.9},
    verify_seconds={"lite": 0.15, "challenge": 46.0},
    # Its per-task time has by far the widest spread (one Challenge world 48 s, another 2 s):
    # its tasks start before all others so its tail does not come last.
    schedule_first=True,
    default_suites=("lite", "challenge"),
)

V2 = replace(
    V1, version=2,
    game=part("game_v2:RepoGameV2"),
    sampler=part("sampler_v2:sample"),
    public_again=part("sampler_v2:public_again"),
    presets=part("sampler_v2:PRESETS"),
    accept=part("sampler_v2:accept"),
    verifier=part("verify_v2:verify"),
    heuristic=part("agents.heuristic_v2:RepoV2HeuristicAgent"),
    importer=part("importer:importer"),
    imported_draft=part("importer:derive"),
    potential=part("potential:potential"),
    preview=True,  # the reference-faithful game on re-expressed v1 worlds; v3 calibrates it
)

V3 = replace(
    V2, version=3,
    sampler=part("sampler_v3:sample"),
    presets=part("sampler_v3:PRESETS"),
    accept=part("sampler_v3:accept"),
    verifier=part("verify_v3:verify"),
    planner=part("agents.planner:RepoPlannerAgent"),
    calibration=part("sampler_v3:CALIBRATION"),
    importer=None, imported_draft=None, preview=False,
)

V4 = replace(
    V3, version=4,
    game=part("game_v4:RepoGameV4"),
    sampler=part("sampler_v4:sample"),
    presets=part("sampler_v4:PRESETS"),
    accept=part("sampler_v4:accept"),
    heuristic=part("agents.heuristic_v3:RepoV3HeuristicAgent"),
    model_free={"sweep": part("agents.sweep:RepoSweepAgent"),
                "named_loop": part("agents.sweep:RepoNamedLoopAgent")},
    calibration=part("sampler_v4:CALIBRATION"),
    ladder_version=2,
    levels=part("levels_v4:LEVELS"),
)

V5 = replace(
    V4, version=5,
    game=part("game_v5:RepoGameV5"),
    sampler=part("sampler_v5:sample"),
    presets=part("sampler_v5:PRESETS"),
    accept=part("sampler_v5:accept"),
    calibration=part("sampler_v5:CALIBRATION"),
    heuristic=part("agents.heuristic_v5:RepoV5HeuristicAgent"),
    model_free={"climb": part("agents.climb:RepoClimbAgent"),
                "optimist": part("agents.climb:RepoOptimistAgent"),
                "named_loop": part("agents.sweep:RepoNamedLoopAgent")},
    # Ladder format 3: each rung's knowledge curve in the certificate.
    ladder_version=3,
)

V6 = replace(
    V5, version=6,
    game=part("game_v6:RepoGameV6"),
    sampler=part("sampler_v6:sample"),
    presets=part("sampler_v6:PRESETS"),
    accept=part("sampler_v6:accept"),
    calibration=part("sampler_v6:CALIBRATION"),
    verifier=part("verify_v6:verify"),
    random_bound=part("groups:random_bound"),
    planner=part("agents.rings:RepoGroupsPlannerAgent"),
    heuristic=part("agents.rings:RepoRingLearnerAgent"),
    # CPU per task (benchmarks/README.md, "Repo v6": 10 Challenge tasks in about 24 s).
    build_seconds={"lite": 0.42, "challenge": 2.5},
    verify_seconds={"lite": 0.15, "challenge": 2.0},
    preview=True,
)

SPECS = (V1, V2, V3, V4, V5, V6)
