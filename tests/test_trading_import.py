"""Released OdysseyArena trading configs: import, and the greedy oracle figures they pin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_gen.core.errors import ArenaGenError
from arena_gen.envs.trading.importer import importer
from arena_gen.envs.trading.verify_v1 import verify
from arena_gen.suite.importer import import_tasks

#: The integer greedy oracle on configs 1-6 over the first 120 days (the released figures).
ORACLE = {1: 0.776, 2: 0.911, 3: 1.150, 4: 0.554, 5: 3.776, 6: 2.876}


def config(shared_dir: Path, i: int) -> Path:
    folder = shared_dir / "reference-data" / "odyssey-arena" / "trading"
    return folder / f"test_trade_config_{i}.json"


@pytest.mark.parametrize("index", sorted(ORACLE))
def test_released_oracle_figures(shared_dir: Path, index: int) -> None:
    draft, = importer(config(shared_dir, index))
    assert draft.budget == draft.world["horizon"] == 120
    assert draft.params["source"] == f"test_trade_config_{index}.json"
    facts = verify(draft).facts
    assert abs(facts["oracle_profit"] - ORACLE[index]) <= 0.001
    assert abs(facts["hold_profit"]) < 0.07  # "within a few percent of zero"
    assert facts["oracle_profit"] <= facts["upper_bound_profit"] < facts["oracle_profit"] + 0.01
    assert 0.5 * facts["oracle_profit"] < facts["ridge_profit"] < facts["oracle_profit"]
    assert facts["identifiability_day"] == len(draft.world["factors"])
    assert not facts["price_floored"]


def test_released_world_is_kept_exactly(shared_dir: Path) -> None:
    path = config(shared_dir, 1)
    raw = json.loads(path.read_text())
    draft, = importer(path)
    world = draft.world
    assert world["matrix"] == raw["dependency_matrix"]
    assert world["initial_prices"] == raw["initial_prices"]
    assert world["changes"][119] == raw["timeline"]["day_120"]["variable_changes"]
    # The released news was written before rounding; agents see it verbatim.
    assert world["news"][0] == raw["timeline"]["day_1"]["news_text"]
    assert "F2 increased significantly (+0.08)" in world["news"][0]


def test_import_tasks_end_to_end(shared_dir: Path) -> None:
    tasks = import_tasks("trading", [config(shared_dir, 1), config(shared_dir, 2)])
    assert [t.id for t in tasks] == ["trading-import-0-0000", "trading-import-0-0001"]
    assert tasks[1].certificate.facts["oracle_profit"] == pytest.approx(0.910, abs=0.001)


def test_other_formats_are_rejected_naming_the_file(shared_dir: Path, tmp_path: Path) -> None:
    lights = shared_dir / "reference-data" / "odyssey-arena" / "lights" / \
        "test_turnonlights_lite_251030.json"
    with pytest.raises(ValueError, match="test_turnonlights_lite_251030.json"):
        importer(lights)
    raw = json.loads(config(shared_dir, 1).read_text())
    cases = {
        "garbage.json": "{not json",
        "list.json": "[1, 2]",
        "noisy.json": json.dumps(dict(raw, price_noise_scale=0.5)),
        "short.json": json.dumps(dict(raw, timeline={"day_1": raw["timeline"]["day_1"]})),
        "shape.json": json.dumps(dict(raw, initial_prices=[1.0, 2.0])),
        "text.json": json.dumps(dict(raw, dependency_matrix=[["a"] * 4] * 5)),
        "news.json": json.dumps(dict(raw, timeline=dict(raw["timeline"], day_3={
            "variable_changes": [0.5, 0, 0, 0], "news_text": "F0 stable (0.00)"}))),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises((ValueError, ArenaGenError), match=name):
            importer(path)
    with pytest.raises(ValueError, match="missing.json"):
        importer(tmp_path / "missing.json")
