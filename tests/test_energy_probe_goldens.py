"""Energy probe drawings pinned (issue 38): the questions and answers v5 (released) and v6 (the
preview) draw, recorded from main of 2026-12-07 (1321140) before the draw's fast paths (the
rules stepped without the game's copy, lazily settled corners, kept efficiencies). Each golden
is the sha256 of the canonical JSON of every question with its answer drawn at the start, the
middle and the end of a released task's witness, attempts 0 and 1, on one game per task (so
the game's kept efficiencies carry over from draw to draw, as in a run)."""

from __future__ import annotations

import pytest

from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.envs.energy.game_v6 import EnergyGameV6
from tests.probe_goldens import drawn_hash, released_tasks

#: The first four Lite and first two moderate Challenge energy tasks (released v4 worlds).
TASKS = released_tasks("energy", (("lite", 4), ("challenge-moderate", 2)))

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


@pytest.mark.parametrize(("cls", "golden"), [(EnergyGameV5, V5_GOLDEN),
                                             (EnergyGameV6, V6_GOLDEN)], ids=["v5", "v6"])
def test_probe_drawing_is_the_recorded_one(cls: type[EnergyGameV5],
                                           golden: dict[str, str]) -> None:
    got = {task["id"]: drawn_hash(cls, task) for task in TASKS}
    assert got == golden
