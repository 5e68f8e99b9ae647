"""Energy Dispatch: hidden periodic renewable efficiencies under demand, budget, stability and
carbon constraints.

Versions (a game file is frozen once released; ``_vN`` in a file name is the registry version
that introduced it):

- v1: :mod:`.game_v1`, its presets and the released-data importer.
- v2: the same game on v2 worlds (:mod:`.sampler_v2`), the receding-horizon LP verifier,
  calibrated presets, the inductive LP dispatcher as heuristic and the with-rules planner.
- v3: ladder format 2 (issue 25). The heuristic detects pattern shifts with a CUSUM
  on its efficiency model's residuals (:mod:`.agents.changepoint`; v2's waited for three
  missed days, as many as the collapse rule allows); a model-free rung (persistence);
  period-greedy searches the periods v2 draws; Challenge has two shifts
  (:mod:`.sampler_v3`), with an inductive ceiling, so it stays harder than Lite.
- v4: the same game, worlds and presets; every task proves it resists model-free play (issue
  38, :mod:`.sampler_v4`): a task the persistence rung solves, or whose random-policy bound
  (Clopper-Pearson over 100 seeded random episodes) exceeds 5 %, is rejected, and the
  certificate records both.
- v5 (preview): :mod:`.game_v5`, v4's worlds, presets and calibration with ``dispatch_ok``
  probes asked in matched pairs over two days, so no public number of a question tells its
  answer (issue 38: v4's let "yes when the rated sum is above demand" score 64 %).
- v6 (preview): :mod:`.game_v6` (v5's game asking about the regime in force only),
  :mod:`.sampler_v6` (Lite = v5's worlds; a paper-scale Challenge of 1,000 days with 4-7
  pattern shifts, regimes of at least 120 days).
- v7 (preview): :mod:`.game_v7` over :mod:`.rules_v7` (more sources: 2-3 wind and 2-3 solar
  sites, each with its own hidden pattern and shifts, every site named in the action),
  :mod:`.sampler_v7`, :mod:`.verify_v7` (v2's windows over sites, :mod:`.window_lp_v7`) and
  the site dispatchers of :mod:`.agents.sites_v7`.
- v8 (preview): :mod:`.game_v8` (v7's game asking about a window of days fixed around the
  probe day, not the regime in force) with :mod:`.sampler_v8`'s presets (v7's, measured on the
  tuning seeds) over v7's sampler; v3's period-greedy over sites (:mod:`.agents.greedy_v8`)
  among the model-free rungs.
"""

from __future__ import annotations

from dataclasses import replace

from arena_gen.core.registry import EnvSpec, OdysseyProfile, Parts

part = Parts(__name__)

V1 = EnvSpec(
    name="energy", version=1, code=3, gym_name="EnergyDispatch", package=__name__,
    game=part("game_v1:EnergyGame"),
    sampler=part("sampler_v1:sample"),
    public_again=part("sampler_v1:public_again"),
    presets=part("sampler_v1:PRESETS"),
    accept=part("sampler_v1:accept"),
    verifier=part("verify_v1:verify"),
    heuristic=part("agents.heuristic:EnergyHeuristicAgent"),
    importer=part("importer:importer"),
    imported_draft=part("importer:derive"),
    replay_check=part("verify_v1:replay_check"),
    daily=True,
    grammar=part("prompts:GRAMMAR"),
    fingerprint=part("fingerprint:SHAPE"),
    # Minus the regret in margin-days against the certificate's witness (v1: the whole-horizon
    # LP's dispatch; v2 and later: the receding-horizon verifier's).
    potential=part("potential:potential"),
    # The reference harness: max_steps 120 (never below the horizon), the state alone shown,
    # a 40-step history.
    odyssey=OdysseyProfile(steps=120, show_feedback=False, window=40,
                           prompt=part("odyssey:PROMPT"), reply=part("odyssey:reply")),
    build_seconds={"lite": 1.04, "challenge": 3.8},
    verify_seconds={"lite": 0.2, "challenge": 5.4},
    default_suites=("lite", "challenge"),
)

V2 = replace(
    V1, version=2,
    sampler=part("sampler_v2:sample"),
    presets=part("sampler_v2:PRESETS"),
    accept=part("sampler_v2:accept"),
    verifier=part("verify_v2:verify"),
    heuristic=part("agents.planner:EnergyInductivePlanner"),
    planner=part("agents.planner:EnergyPlanner"),
    baselines={"period_greedy": part("agents.heuristic:EnergyHeuristicAgent")},
    calibration=part("sampler_v2:CALIBRATION"),
    importer=None, imported_draft=None,
)

V3 = replace(
    V2, version=3,
    sampler=part("sampler_v3:sample"),
    presets=part("sampler_v3:PRESETS"),
    accept=part("sampler_v3:accept"),
    heuristic=part("agents.changepoint:EnergyChangePointPlanner"),
    planner=part("agents.planner_v3:EnergyPlannerV3"),
    baselines={"period_greedy": part("agents.changepoint:EnergyPeriodGreedy")},
    model_free={"persistence": part("agents.changepoint:EnergyPersistencePlanner")},
    calibration=part("sampler_v3:CALIBRATION"),
    ladder_version=2,
    levels=part("levels_v3:LEVELS"),
    # Each pattern shift's certified minimum detection day (issue 39), for show --reveal.
    hidden_change=part("detectability:reveal_lines"),
)

V4 = replace(
    V3, version=4,
    presets=part("sampler_v4:PRESETS"),
    calibration=part("sampler_v4:CALIBRATION"),
    # Ladder format 3: each rung's knowledge curve in the certificate.
    ladder_version=3,
)

V5 = replace(
    V4, version=5,
    # v4's worlds, presets and ladder; probes that no public number answers (issue 38).
    game=part("game_v5:EnergyGameV5"),
)

V6 = replace(
    V5, version=6,
    # v5's Lite worlds; a paper-scale Challenge (1,000 days, 4-7 shifts); questions about the
    # regime in force only (issue 42, issue 38's remaining energy flaw).
    game=part("game_v6:EnergyGameV6"),
    sampler=part("sampler_v6:sample"),
    presets=part("sampler_v6:PRESETS"),
    accept=part("sampler_v6:accept"),
    calibration=part("sampler_v6:CALIBRATION"),
    levels=part("levels_v6:LEVELS"),
    # Challenge: 88-92 s CPU per 10-task seed, ladder and resistance included.
    build_seconds={"lite": V5.build_seconds["lite"], "challenge": 9.0},
    preview=True,  # the paper-scale Challenge; the lead flips defaults for every env at once
)

V7 = replace(
    V6, version=7,
    # More sources: several wind and solar sites, each with its own hidden regimes (issue 42).
    game=part("game_v7:EnergyGameV7"),
    sampler=part("sampler_v7:sample"),
    public_again=part("sampler_v7:public_again"),
    presets=part("sampler_v7:PRESETS"),
    accept=part("sampler_v7:accept"),
    verifier=part("verify_v7:verify"),
    heuristic=part("agents.sites_v7:SiteChangePoint"),
    planner=part("agents.sites_v7:SitePlanner"),
    baselines={},
    model_free={"persistence": part("agents.sites_v7:SitePersistence")},
    calibration=part("sampler_v7:CALIBRATION"),
    levels=None,
    # Each site's pattern shifts with their certified minimum detection days (issue 39).
    hidden_change=part("detectability_v7:reveal_lines"),
    grammar=part("prompts_v7:GRAMMAR"),
    odyssey=None,  # the reference harness names wind and solar; v7 has sites
    # Challenge: 105-109 s CPU per 10-task seed (seeds 7-9), ladder and resistance included.
    build_seconds={"lite": 0.2, "challenge": 10.7},
)

V8 = replace(
    V7, version=8,
    # Question days from a window fixed around the probe day, whatever the hidden regimes.
    game=part("game_v8:EnergyGameV8"),
    presets=part("sampler_v8:PRESETS"),
    calibration=part("sampler_v8:CALIBRATION"),
    # v3's period-greedy over sites: no regimes, no look-ahead, so a model-free rung (the
    # resistance check plays it: an accepted task is one it fails).
    model_free={"period_greedy": part("agents.greedy_v8:SitePeriodGreedy"),
                "persistence": part("agents.sites_v7:SitePersistence")},
    # Challenge: 89-127 s CPU per 10-task seed (seeds 11-16), period-greedy included.
    build_seconds={"lite": 0.2, "challenge": 10.8},
)

SPECS = (V1, V2, V3, V4, V5, V6, V7, V8)
