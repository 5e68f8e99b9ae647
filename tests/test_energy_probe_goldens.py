"""Energy probe drawings pinned (issue 38): the questions and answers v5 (released) and v6 (the
preview) draw, recorded from main of 2026-12-07 (1321140) before the draw's fast paths (the
rules stepped without the game's copy, lazily settled corners, kept efficiencies). Each golden
is the sha256 of the canonical JSON of every question with its answer drawn at the start, the
middle and the end of a released task's witness, attempts 0 and 1, on one game per task (so
the game's kept efficiencies carry over from draw to draw, as in a run)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from arena_gen.core.canon import canonical_json
from arena_gen.core.game import WorldView
from arena_gen.core.probes import draw
from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.envs.energy.game_v6 import EnergyGameV6

ROOT = Path(__file__).resolve().parents[1]

#: Per task id, the sha256 of its questions and answers drawn by 1321140's ``EnergyGameV5``.
V5_GOLDEN = {
    "energy-lite-7-0000": "37de480be1e21ae4214439ac179d520a87e5b4b62f1a6f063929864ccd2c93c2",
    "energy-lite-7-0001": "68abebe1bc87834e4dab168fb99b9327b3cf6bae4674b17b7b617c627cc68a74",
    "energy-lite-7-0002": "98e5bc5adb29bdbfa379234ff1b2bf0b29aa717a6a1ca03d02cc72392133ecb6",
    "energy-lite-7-0003": "23e1dac2d62464b9f7ed40628fb67059e455f9f40effcdfcad80e61f718bf5d0",
    "energy-challenge-7-0000": "ebc50774fa90c07ae33ac70c973455e0671b4af3902e2183f91c1007df0d2c6e",
    "energy-challenge-7-0001": "aab092b3eb6da1cd483fd093fa4eb06311627772e5a4ee7a1d253192df74c274",
}
#: The same, drawn by 1321140's ``EnergyGameV6`` on the same worlds (on Lite's, whose patterns
#: never shift, v6 asks v5's questions).
V6_GOLDEN = {
    "energy-lite-7-0000": "37de480be1e21ae4214439ac179d520a87e5b4b62f1a6f063929864ccd2c93c2",
    "energy-lite-7-0001": "68abebe1bc87834e4dab168fb99b9327b3cf6bae4674b17b7b617c627cc68a74",
    "energy-lite-7-0002": "98e5bc5adb29bdbfa379234ff1b2bf0b29aa717a6a1ca03d02cc72392133ecb6",
    "energy-lite-7-0003": "23e1dac2d62464b9f7ed40628fb67059e455f9f40effcdfcad80e61f718bf5d0",
    "energy-challenge-7-0000": "86ca1960c049bdb4df213e695c6ebec17bde0ed8a1f506049a2088eb1188c66c",
    "energy-challenge-7-0001": "a106739f9aa8e294c2a5fc36afc3365a9e957b5b286c85920ced658f06ee9d39",
}


def released_tasks() -> list[dict[str, Any]]:
    """The first four Lite and first two moderate Challenge energy tasks (released v4 worlds)."""
    out = []
    for suite, n in (("lite", 4), ("challenge-moderate", 2)):
        lines = (ROOT / "suites" / suite / "energy.jsonl").read_text().splitlines()
        out += [json.loads(line) for line in lines[:n]]
    return out


def drawn_hash(cls: type[EnergyGameV5], task: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of the questions and answers ``cls`` draws on ``task``'s
    witness (start, middle, end; attempts 0 and 1), each visited state kept."""
    game = cls(WorldView(task["world"], task["public"], task["budget"]))
    witness = task["certificate"]["witness"]
    at = {0, len(witness) // 2, len(witness)}
    state = game.initial()
    visited = [state]
    out = []
    for step, action in enumerate([None, *witness]):
        if action is not None:
            state = game.act(state, action)[0]
            visited.append(state)
        if step in at:
            for attempt in (0, 1):
                probes = draw(game, state, visited, task["sha256"], attempt, step)
                out.append([{**p.to_dict(), "answer": game.probe_answer(state, p)}
                            for p in probes])
    return hashlib.sha256(canonical_json(out).encode()).hexdigest()


@pytest.mark.parametrize(("cls", "golden"), [(EnergyGameV5, V5_GOLDEN),
                                             (EnergyGameV6, V6_GOLDEN)], ids=["v5", "v6"])
def test_probe_drawing_is_the_recorded_one(cls: type[EnergyGameV5],
                                           golden: dict[str, str]) -> None:
    got = {task["id"]: drawn_hash(cls, task) for task in released_tasks()}
    assert got == golden
