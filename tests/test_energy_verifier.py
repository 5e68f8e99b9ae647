"""Energy sampler and LP verifier: independent components, slack, witness, non-triviality."""

from __future__ import annotations

import numpy as np
import pytest
from test_energy_env import v1_tasks

from arena_gen.core.canon import canonical_json
from arena_gen.core.game import WorldView, play
from arena_gen.core.presets import PresetError
from arena_gen.core.replay import replay
from arena_gen.core.seeds import attempt_seed, child, component_rngs, rng, task_seed
from arena_gen.core.task import Certificate
from arena_gen.envs.energy.game_v1 import EnergyGame, Rules
from arena_gen.envs.energy.sampler_v1 import PRESETS, EnergyPreset, accept, sample, turn_budget
from arena_gen.envs.energy.verify_v1 import build_lp, min_ramp, verify, worst_case
from arena_gen.suite.catalog import preset


def _draft(index: int = 0, suite: str = "lite"):  # type: ignore[no-untyped-def]
    return sample(PRESETS[suite], attempt_seed(task_seed(7, suite, 3, index), 0))


def test_sampler_is_deterministic_and_in_range() -> None:
    a, b = _draft(0), _draft(0)
    assert canonical_json(a.world) == canonical_json(b.world)
    w = a.world
    assert w["horizon"] == 120 and a.budget == 132 == turn_budget(120)
    assert all(0.60 <= e <= 1.05 for e in w["eff_wind"])
    assert all(0.65 <= e <= 1.10 for e in w["eff_solar"])
    assert all(0.95 <= e <= 1.05 for e in w["eff_thermal"])
    assert 15 <= w["wind_period"] <= 25 and 15 <= w["solar_period"] <= 25
    assert 0.95 <= w["target_stability"] <= 0.97 and 0.66 <= w["target_carbon"] <= 0.72
    assert w["budget"] == [round(4.2 * d, 6) for d in w["demand"]]
    assert all(len(str(x).split(".")[-1]) <= 6 for x in w["demand"])
    init = w["initial_rated"]
    assert 0.95 * w["demand"][0] * 0.999 <= sum(init.values()) <= 1.05 * w["demand"][0] * 1.001
    assert w["shift"] is None


def test_components_use_independent_streams() -> None:
    """Targets come from their own child stream, not the demand's (the released generator
    drew both from one seed, making targets exact functions of the demand base)."""
    seq = attempt_seed(task_seed(7, "lite", 3, 0), 0)
    w = sample(PRESETS["lite"], seq).world
    names = ["wind", "solar", "thermal", "demand", "targets", "initial", "shift"]
    streams = component_rngs(seq, names)
    assert w["target_stability"] == round(float(streams["targets"].uniform(0.95, 0.97)), 6)
    demand_first = rng(child(seq, names.index("demand"))).uniform(0.95, 0.97)
    assert w["target_stability"] != round(float(demand_first), 6)
    drafts = [_draft(i) for i in range(6)]
    assert len({d.world["target_stability"] for d in drafts}) == 6
    assert w["eff_wind"][:10] != w["eff_solar"][:10]


def test_pattern_is_periodic() -> None:
    w = _draft(1).world
    e, period = np.asarray(w["eff_wind"]), w["wind_period"]
    lag_period = np.abs(e[period:] - e[:-period]).mean()
    lag_one = np.abs(e[1:] - e[:-1]).mean()
    assert lag_period < 0.5 * lag_one


def test_challenge_has_one_shift() -> None:
    d = _draft(0, "challenge")
    w = d.world
    assert w["horizon"] == 1000 and d.budget == 1100
    assert 333 <= w["shift"]["day"] <= 666 and d.params["shift_day"] == w["shift"]["day"]
    assert f"On day {w['shift']['day']} the patterns shift" in d.rules_text


def test_verify_lite_task_facts_and_witness() -> None:
    task = v1_tasks(count=1)[0]
    cert = task.certificate
    f = cert.facts
    assert cert.solvable and cert.method == "lp" and cert.min_steps is None
    assert len(cert.witness) == 120
    assert f["stability_slack"] >= 0.01 and f["carbon_slack"] >= 0.01
    assert f["nontrivial"] is True and f["worst_case_plan"] in ("infeasible", "fails")
    # Ignoring the pattern at the right mean level collapses the grid within days.
    assert f["mean_efficiency_plan"] == "fails" and f["mean_plan_days"] < 30
    assert f["best_stability"] == pytest.approx(task.world["target_stability"]
                                                + f["stability_slack"], abs=2e-6)
    result = replay(task)
    assert result.success and result.steps == 120 and result.total_reward == 1.0
    assert result.final_info["stability"] == pytest.approx(f["witness_stability"], abs=1e-6)
    assert result.final_info["thermal_share"] < task.world["target_carbon"]
    # The witness plays to success through the game compiled from the bare world.
    played = play(EnergyGame(WorldView(task.world)), cert.witness)
    assert played.success and played.steps == 120
    assert round(played.final.stability, 6) == f["witness_stability"]
    assert round(played.final.thermal_share, 6) == f["witness_thermal_share"]


def test_verify_is_deterministic() -> None:
    draft = _draft(2)
    a, b = verify(draft), verify(draft)
    assert a.witness == b.witness and canonical_json(a.facts) == canonical_json(b.facts)


def test_witness_has_margin_against_rounding() -> None:
    task = v1_tasks(count=1)[0]
    played = play(EnergyGame(task), task.certificate.witness)
    assert played.steps == 120
    for state in played.states[1:]:
        rec = state.last
        assert rec.supply - rec.demand > 0.01 and rec.budget - rec.cost > 0.01


def test_stability_bound_is_conservative() -> None:
    """The LP ignores min(1, .) in the ramp term: its best stability never exceeds the truth."""
    task = v1_tasks(count=1)[0]
    assert task.certificate.facts["witness_stability"] <= task.certificate.facts[
        "best_stability"] + 1e-9


def test_worst_case_plan_and_infeasible_world() -> None:
    w = dict(_draft(3).world)
    assert worst_case(w, Rules(w)) == "infeasible"
    # An absurdly low budget makes the world infeasible: the verifier says so, accept rejects.
    poor = dict(w, budget=[1.0] * w["horizon"])
    draft = _draft(3)
    draft.world = poor
    cert = verify(draft)
    assert not cert.solvable and cert.witness == [] and cert.facts["infeasible"] == "stability"
    assert accept(draft, cert).startswith("unsolvable")
    assert min_ramp(build_lp(Rules(poor), Rules(poor).eff), 1.0).status == 2


def test_accept_reasons() -> None:
    draft = _draft(0)
    base = {"stability_slack": 0.02, "carbon_slack": 0.05, "nontrivial": True}

    def cert(**facts: object) -> Certificate:
        return Certificate(True, "lp", None, ["{}"], 1, None, {**base, **facts})

    assert accept(draft, cert()) is None
    assert accept(draft, cert(stability_slack=0.005)).startswith("tight stability")
    assert accept(draft, cert(carbon_slack=0.001)).startswith("tight carbon")
    assert accept(draft, cert(nontrivial=False)).startswith("trivial")


@pytest.mark.slow
def test_challenge_task_builds_and_replays() -> None:
    task = v1_tasks("challenge", count=1)[0]
    cert = task.certificate
    assert task.world["horizon"] == 1000 and task.budget == 1100
    assert task.world["shift"] is not None and len(cert.witness) == 1000
    assert cert.facts["stability_slack"] >= 0.01 and cert.facts["carbon_slack"] >= 0.01
    assert cert.facts["nontrivial"]
    result = replay(task)
    assert result.success and result.steps == 1000


def test_presets_record_exactly_the_released_manifest_dicts() -> None:
    assert PRESETS["lite"].to_dict() == {
        "count": 30, "horizon": 120, "t_min": 15, "t_max": 25, "shift": False,
        "min_stability_slack": 0.01, "min_carbon_slack": 0.01, "max_attempts": 50}
    assert PRESETS["challenge"].to_dict() == {
        "count": 10, "horizon": 1000, "t_min": 15, "t_max": 25, "shift": True,
        "min_stability_slack": 0.01, "min_carbon_slack": 0.01, "max_attempts": 50}
    for suite in ("lite", "challenge"):
        assert preset(suite, "energy", 1) == PRESETS[suite].to_dict()
        assert EnergyPreset.of(PRESETS[suite].to_dict()) == PRESETS[suite]
    seq = attempt_seed(task_seed(7, "lite", 3, 0), 0)
    assert canonical_json(sample(PRESETS["lite"].to_dict(), seq).world) == canonical_json(
        sample(PRESETS["lite"], seq).world)


@pytest.mark.parametrize("change, message", [
    ({"horizn": 100}, "unknown EnergyPreset knob 'horizn'; did you mean 'horizon'\\?"),
    ({"t_max": 10}, "'t_min' = 15 exceeds 't_max' = 10"),
    ({"horizon": 0}, "knob 'horizon' = 0 is outside"),
    ({"shift": 1}, "knob 'shift' must be true or false, got 1"),
    ({"min_carbon_slack": -0.1}, "min_carbon_slack"),
    ({"max_attempts": 0}, "max_attempts"),
])
def test_preset_errors_name_the_key(change: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(PresetError, match=message):
        EnergyPreset.of({**PRESETS["lite"].to_dict(), **change})
    missing = {k: v for k, v in PRESETS["lite"].to_dict().items() if k != "t_min"}
    with pytest.raises(PresetError, match="missing knob 't_min'"):
        EnergyPreset.of(missing)
