"""A run keeps what it read before its episodes out of the garbage collector's passes while
they play (``runner.heap``): frozen during the episodes, unfrozen when the run ends or fails,
a freeze held by someone else left as it is; what the run writes does not depend on it."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from arena_gen.runner.heap import long_lived_frozen
from arena_gen.runner.run import RunConfig, run_suite

LITE = Path(__file__).resolve().parents[1] / "suites" / "lite"


def test_objects_alive_before_the_block_are_frozen_inside_it_only() -> None:
    before = object.__new__(type("Kept", (), {}))  # a tracked object alive before the block
    assert gc.get_freeze_count() == 0
    with long_lived_frozen():
        assert gc.get_freeze_count() > 0
        assert not any(o is before for o in gc.get_objects())  # out of every generation
    assert gc.get_freeze_count() == 0
    assert any(o is before for o in gc.get_objects())


def test_a_failing_block_unfreezes_and_a_held_freeze_is_left_alone() -> None:
    with pytest.raises(RuntimeError), long_lived_frozen():
        raise RuntimeError("an episode failed")
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        with long_lived_frozen():
            pass
        # not unfrozen under its holder (the count itself can drop: a frozen object may die)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_run_plays_its_episodes_frozen_and_ends_unfrozen(tmp_path: Path) -> None:
    counts: list[int] = []

    def seen(record: dict[str, Any]) -> None:
        counts.append(gc.get_freeze_count())
    run_suite(RunConfig(suite=str(LITE), agent="random", envs=["lights"],
                        tasks=["lights-lite-7-0000", "lights-lite-7-0001"],
                        out=str(tmp_path / "run")), seen)
    assert len(counts) == 2 and all(c > 0 for c in counts)
    assert gc.get_freeze_count() == 0


def test_what_a_run_writes_is_the_same_frozen_or_not(tmp_path: Path) -> None:
    cfg = {"suite": str(LITE), "agent": "heuristic", "envs": ["repo"], "probes": 8,
           "tasks": ["repo-lite-7-0000", "repo-lite-7-0001"]}
    run_suite(RunConfig(**cfg, out=str(tmp_path / "frozen")))
    gc.freeze()  # held here: the run's block then freezes nothing
    try:
        run_suite(RunConfig(**cfg, out=str(tmp_path / "plain")))
    finally:
        gc.unfreeze()
    lines = [_untimed((tmp_path / d / "trajectories.jsonl").read_text())
             for d in ("frozen", "plain")]
    assert lines[0] == lines[1] and len(lines[0]) == 2


def _untimed(text: str) -> list[dict[str, Any]]:
    """The records without what the clock decides (seconds, latencies, the chain link)."""
    def strip(o: Any) -> Any:
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items() if k not in ("seconds", "latency", "prev")}
        return [strip(x) for x in o] if isinstance(o, list) else o
    return [strip(json.loads(line)) for line in text.splitlines()]
