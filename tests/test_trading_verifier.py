"""Trading sampler and verifier: components, presets, identifiability, oracle, bound, baselines."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import built_tasks_of

from arena_gen.core.errors import VerificationError
from arena_gen.core.replay import check_witness, replay
from arena_gen.core.seeds import attempt_seed, task_seed
from arena_gen.core.task import Certificate, Task
from arena_gen.envs.trading.sampler_v1 import PRESETS, accept, sample
from arena_gen.envs.trading.verify_v1 import continuous_bound, identifiability, verify


def draft_for(suite: str, index: int, attempt: int = 0, seed: int = 7):  # noqa: ANN201
    return sample(PRESETS[suite], attempt_seed(task_seed(seed, suite, 2, index), attempt))


def test_lite_tasks_cover_the_shape_grid_twice() -> None:
    shapes = [(d.params["stocks"], d.params["factors"])
              for d in (draft_for("lite", i) for i in range(30))]
    grid = [(s, f) for f in range(4, 7) for s in range(5, 10)]
    assert sorted(shapes) == sorted(grid * 2)


def test_lite_draft_follows_the_preset() -> None:
    d = draft_for("lite", 3)
    w = d.world
    assert d.budget == w["horizon"] == 120 and w["cost_rate"] == 0.0 and w["noise_scale"] == 0.0
    assert w["initial_cash"] == 50000.0
    assert np.abs(np.array(w["matrix"])).max() <= 1.8
    assert all(10 <= p <= 100 for p in w["initial_prices"])
    assert np.array(w["changes"]).shape == (120, d.params["factors"])
    assert not np.any(np.array(w["noise"]))
    assert all(round(x, 4) == x for row in w["changes"] for x in row)
    assert all(round(x, 3) == x for row in w["matrix"] for x in row)
    assert d.rules_text.splitlines()[1].startswith(f"S0 moves by {w['matrix'][0][0]:.3f} x dF0 ")
    assert [r.id for r in d.rubric] == ["profitable", "beats_hold", "half_oracle"]


def test_challenge_draft_carries_noise_and_costs() -> None:
    d = draft_for("challenge", 0)
    w = d.world
    assert 10 <= d.params["stocks"] <= 16 and 6 <= d.params["factors"] <= 10
    assert w["horizon"] == d.budget == 1000 and w["cost_rate"] == 0.001
    noise = np.array(w["noise"])
    assert noise.shape == (1000, d.params["stocks"]) and 0.27 < noise.std() < 0.33
    assert "normal(0, 0.3)" in d.rules_text and "0.001" in d.rules_text


def test_each_task_has_its_own_timeline_and_components() -> None:
    a, b = draft_for("lite", 0), draft_for("lite", 15)  # same S x F cell
    assert (a.params["stocks"], a.params["factors"]) == (b.params["stocks"], b.params["factors"])
    assert a.world["changes"] != b.world["changes"]
    assert a.world["matrix"] != b.world["matrix"]
    again = draft_for("lite", 0)
    assert again.world == a.world  # same stream, same world
    # Components are independent streams: the timeline does not depend on the matrix size.
    c = draft_for("challenge", 0)
    assert c.world["changes"][0][:3] != a.world["changes"][0][:3]


def test_identifiability_day_and_condition() -> None:
    changes = np.array([[0.1, 0.2], [0.2, 0.4], [0.0, 0.0], [0.1, -0.1], [0.3, 0.3]])
    m, cond = identifiability(changes)
    assert m == 4
    assert cond == pytest.approx(np.linalg.cond(changes[:4]))
    assert identifiability(np.zeros((5, 2))) == (None, None)


def test_continuous_bound_with_and_without_costs() -> None:
    path = np.array([[10.0, 10.0], [12.0, 9.0], [12.0, 18.0], [6.0, 9.0]])
    # Free trading: ride S0 (x1.2), switch to S1 (x2), cash out before the fall.
    assert continuous_bound(path, 0.0) == pytest.approx(2.4)
    fee = 0.01
    expected = max(1.2 * 2 * (1 - fee) ** 2 / (1 + fee) ** 2, 2 / (1 + fee) * (1 - fee))
    assert continuous_bound(path, fee) == pytest.approx(expected)


def test_lite_certificate_facts_and_witness() -> None:
    task = built_tasks_of("trading", 1, count=2)[0]
    cert = task.certificate
    facts = cert.facts
    assert cert.method == "oracle" and cert.min_steps is None and cert.solvable
    assert len(cert.witness) == task.budget == 120
    assert facts["identifiability_day"] <= 3 * task.params["factors"]
    assert facts["oracle_profit"] >= PRESETS["lite"]["min_oracle_profit"]
    assert facts["oracle_profit"] <= facts["upper_bound_profit"]
    assert facts["ridge_profit"] < facts["oracle_profit"]
    assert abs(facts["hold_profit"]) < 0.2
    assert not facts["price_floored"] and facts["min_price"] > 0.1
    result = replay(task)
    assert result.success and result.steps == 120
    assert round(result.final_info["total_value"], 2) == facts["oracle_final_value"]


def test_verifier_is_deterministic() -> None:
    task = built_tasks_of("trading", 1, count=1)[0]
    again = verify(task).to_dict()
    stored = task.certificate.to_dict()
    again.pop("seconds")
    stored.pop("seconds")
    assert again == stored


def test_replay_check_catches_a_wrong_recorded_value() -> None:
    task = built_tasks_of("trading", 1, count=1)[0]
    facts = dict(task.certificate.facts, oracle_final_value=task.certificate.facts[
        "oracle_final_value"] + 1.0)
    cert = dataclasses.replace(task.certificate, facts=facts)
    bad = Task.from_dict(dict(task.to_dict(), certificate=cert.to_dict()), check_hash=False)
    with pytest.raises(VerificationError, match="witness replays to"):
        check_witness(bad)
    short = dataclasses.replace(task.certificate, witness=task.certificate.witness[:-1])
    bad = Task.from_dict(dict(task.to_dict(), certificate=short.to_dict()), check_hash=False)
    with pytest.raises(VerificationError, match="does not reach success"):
        check_witness(bad)


def test_accept_reasons() -> None:
    d = draft_for("lite", 0)
    base = Certificate(True, "oracle", None, [], 1, None,
                       {"identifiability_day": 4, "oracle_profit": 0.5, "price_floored": False,
                        "min_price": 5.0})
    assert accept(d, base) is None
    f = d.params["factors"]
    cases = [({"price_floored": True}, "floored"), ({"identifiability_day": 3 * f + 1},
                                                     "unidentifiable"),
             ({"identifiability_day": None}, "unidentifiable"), ({"oracle_profit": 0.1}, "flat")]
    for change, kind in cases:
        cert = dataclasses.replace(base, facts=dict(base.facts, **change))
        assert accept(d, cert).split(" ")[0] == kind
    assert accept(d, dataclasses.replace(base, solvable=False)).startswith("unprofitable")


def test_challenge_task_verifies_with_ridge_far_below_oracle() -> None:
    task = built_tasks_of("trading", 1, suite="challenge", count=1)[0]
    facts = task.certificate.facts
    assert task.world["cost_rate"] == 0.001 and task.world["noise_scale"] == 0.3
    assert facts["oracle_profit"] >= PRESETS["challenge"]["min_oracle_profit"]
    assert facts["ridge_profit"] < 0.1 * facts["oracle_profit"]
    assert facts["oracle_profit"] <= facts["upper_bound_profit"]
    assert len(task.certificate.witness) == 1000
    check_witness(task)


def test_presets_are_typed_and_validated() -> None:
    from arena_gen.core.presets import PresetError
    from arena_gen.envs.trading.sampler_v1 import TradingPreset

    lite = PRESETS["lite"]
    assert lite.to_dict()["stocks"] == [5, 9] and lite.stocks == (5, 9)
    assert TradingPreset.of(lite.to_dict()) == lite and dict(lite) == lite.to_dict()
    with pytest.raises(PresetError, match="unknown TradingPreset knob 'cost'"):
        sample(dict(lite, cost=0.1), attempt_seed(task_seed(7, "lite", 2, 0), 0))
    with pytest.raises(PresetError, match="'cost_rate' = -0.1 is outside"):
        lite.replace(cost_rate=-0.1)
    with pytest.raises(PresetError, match="lo > hi"):
        lite.replace(factors=[6, 4])
    with pytest.raises(PresetError, match="true or false"):
        lite.replace(cover_grid=1)
