"""AI Trading: learn the hidden linear map from factor news to price moves, and trade on it.

Versions (a game file is frozen once released; ``_vN`` in a file name is the registry version
that introduced it):

- v1: :mod:`.game_v1` (success: half the perfect-foresight oracle's profit), its presets and
  the released-data importer.
- v2: :mod:`.game_v2` (success from the W-known planner's log growth), calibrated presets, the
  planner and the paper's strategies that read only what an agent sees.
- v3: :mod:`.game_v3` (success from the knowledge score, whatever the allocation),
  per-task noise scales, ladder format 2 with model-free rungs and learners with several
  allocation rules (:mod:`.agents.v3`).
- v4: :mod:`.game_v4` (v3's knowledge score with a switching tolerance for money kept in
  place, so a trader told W that switches only past a margin passes), v3's worlds, presets and
  ladder; released 2026-12-03.
- v5: :mod:`.game_v5` (every day counts in the knowledge score by its own stakes, so spreading
  evenly on uncertain days costs instead of dropping them), v4's worlds, presets and ladder;
  the allocation variants of :mod:`.policies_v5` are its evidence and its tests' attackers.
- v6 (preview): :mod:`.game_v6` (v5's game on worlds whose factor map changes at hidden
  days), Lite = v5's worlds, a paper-scale Challenge (1,000 days, 2-4 regimes), the planner
  told every regime and a ridge rung that detects changes (:mod:`.agents.v6`).
"""

from __future__ import annotations

from dataclasses import replace

from arena_gen.core.registry import EnvSpec, OdysseyProfile, Parts

part = Parts(__name__)

V1 = EnvSpec(
    name="trading", version=1, code=2, gym_name="AITrading", package=__name__,
    game=part("game_v1:TradingGame"),
    sampler=part("sampler_v1:sample"),
    public_again=part("sampler_v1:public_again"),
    presets=part("sampler_v1:PRESETS"),
    accept=part("sampler_v1:accept"),
    verifier=part("verify_v1:verify"),
    heuristic=part("agents.heuristic:TradingHeuristicAgent"),
    importer=part("importer:importer"),
    imported_draft=part("importer:derive"),
    replay_check=part("verify_v1:replay_check"),
    # The paper's six scripted strategies, all-in on their forecast: optimal (perfect
    # foresight, privileged), conservative (least squares after F+2 days), progressive (least
    # squares from day 3), correlation (per-factor simple regressions), rolling (least squares
    # on the last 15 days), ridge (progressive with an L2 penalty).
    agents={f"trading-{s}": part(f"agents.strategies:{s}_agent")
            for s in ("optimal", "conservative", "progressive", "correlation", "rolling",
                      "ridge")},
    daily=True,
    # Minus the regret in money against the certificate's witness (v1: the perfect-foresight
    # oracle's trades; v3 and later: the W-known planner's).
    potential=part("potential:potential"),
    grammar=part("prompts:GRAMMAR"),
    fingerprint=part("fingerprint:SHAPE"),
    # The reference harness: max_steps 120 (never below the horizon), the state alone shown,
    # a 50-step history.
    odyssey=OdysseyProfile(steps=120, show_feedback=False, window=50,
                           prompt=part("odyssey:PROMPT")),
    build_seconds={"lite": 0.32, "challenge": 4.8},
    verify_seconds={"lite": 0.02, "challenge": 0.14},
    default_suites=("lite", "challenge"),
)

V2 = replace(
    V1, version=2,
    game=part("game_v2:TradingGameV2"),
    sampler=part("sampler_v2:sample"),
    presets=part("sampler_v2:PRESETS"),
    accept=part("sampler_v2:accept"),
    verifier=part("verify_v2:verify"),
    planner=part("agents.planner:TradingPlannerAgent"),
    calibration=part("sampler_v2:CALIBRATION"),
    baselines={s: part(f"agents.strategies:{s.capitalize()}Agent")
               for s in ("conservative", "progressive", "correlation", "rolling", "ridge")},
    importer=None, imported_draft=None,
)

_V3_AGENTS = "agents.v3"
V3 = replace(
    V2, version=3, ladder_version=2,
    game=part("game_v3:TradingGameV3"),
    sampler=part("sampler_v3:sample"),
    presets=part("sampler_v3:PRESETS"),
    accept=part("sampler_v3:accept"),
    verifier=part("verify_v3:verify"),
    replay_check=part("verify_v3:replay_check"),
    calibration=part("sampler_v3:CALIBRATION"),
    heuristic=part(f"{_V3_AGENTS}:HeuristicV3Agent"),
    baselines={name: part(f"{_V3_AGENTS}:{cls}")
               for name, cls in (("ridge-top2", "RidgeTop2Agent"),
                                 ("ridge-top3", "RidgeTop3Agent"),
                                 ("ridge-margin", "RidgeMarginAgent"),
                                 ("window60-allin", "Window60Agent"))},
    model_free={"hold": part(f"{_V3_AGENTS}:HoldAgent"),
                "momentum": part(f"{_V3_AGENTS}:MomentumAgent")},
    levels=part("levels_v3:LEVELS"),
)

V4 = replace(
    V3, version=4,
    game=part("game_v4:TradingGameV4"),
    sampler=part("sampler_v4:sample"),
    presets=part("sampler_v4:PRESETS"),
    accept=part("sampler_v4:accept"),
    verifier=part("verify_v4:verify"),
    replay_check=part("verify_v4:replay_check"),
    calibration=part("sampler_v4:CALIBRATION"),
    levels=part("levels_v4:LEVELS"),
)

V5 = replace(
    V4, version=5,
    game=part("game_v5:TradingGameV5"),
    sampler=part("sampler_v5:sample"),
    presets=part("sampler_v5:PRESETS"),
    accept=part("sampler_v5:accept"),
    verifier=part("verify_v5:verify"),
    replay_check=part("verify_v5:replay_check"),
    calibration=part("sampler_v5:CALIBRATION"),
    levels=part("levels_v5:LEVELS"),
    grammar=part("prompts:GRAMMAR_V5"),
    # v4's learners naming their best place (v5 grades the named place; a book naming none
    # is graded on its largest position, so a split or a fee-aware hold would be misread),
    # the gated attack as a rung; v4's ridge-margin (its tolerance is gone) leaves.
    heuristic=part("agents.allocation:HeuristicV5Agent"),
    planner=part("agents.planner:TradingPlannerV5Agent"),
    baselines={"window60-allin": V4.baselines["window60-allin"],
               **{name: part(f"agents.allocation:{cls}")
                  for name, cls in (("ridge-top2", "RidgeTop2V5Agent"),
                                    ("ridge-top3", "RidgeTop3V5Agent"),
                                    ("ridge-gated", "RidgeGatedV5Agent"))}},
    # Ladder format 3: each rung's knowledge curve in the certificate.
    ladder_version=3,
)

V6 = replace(
    V5, version=6,
    game=part("game_v6:TradingGameV6"),
    sampler=part("sampler_v6:sample"),
    public_again=part("sampler_v6:public_again"),
    presets=part("sampler_v6:PRESETS"),
    accept=part("sampler_v6:accept"),
    verifier=part("verify_v6:verify"),
    calibration=part("sampler_v6:CALIBRATION"),
    levels=part("levels_v6:LEVELS"),
    planner=part("agents.v6:RegimePlannerAgent"),
    # v5's rungs plus a ridge that detects the map's changes (CUSUM on its forecast errors).
    baselines={**V5.baselines, "ridge-detect": part("agents.v6:RidgeDetectAgent")},
    # Challenge: 75-81 s CPU per 10-task seed, rejections included (bench_paper_trading.py).
    build_seconds={"lite": V5.build_seconds["lite"], "challenge": 8.0},
    preview=True,  # the paper-scale Challenge; the lead flips defaults for every env at once
)

SPECS = (V1, V2, V3, V4, V5, V6)
