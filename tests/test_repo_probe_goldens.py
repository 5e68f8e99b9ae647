"""Repo probe drawings pinned (issue 38): v4's is the one it was released with (commit 2574cb8),
v5's the one its released certificates' knowledge curves were computed from. Each golden is the
sha256 of the canonical JSON of every question (with its answer) drawn at the start, the middle
and the end of a released task's witness, attempts 0 and 1, recorded once from that code."""

from __future__ import annotations

import pytest

from arena_gen.envs.repo.game_v4 import RepoGameV4
from arena_gen.envs.repo.game_v5 import RepoGameV5
from tests.probe_goldens import drawn_hash, released_tasks

#: The first five Lite and two moderate Challenge repo tasks (``suites/challenge-moderate``
#: was ``suites/challenge`` when the goldens were drawn).
TASKS = released_tasks("repo", (("lite", 5), ("challenge-moderate", 2)))

#: Per task id, the sha256 of its questions and answers, drawn by 2574cb8's ``RepoGameV4``.
V4_GOLDEN = {
    "repo-lite-7-0000": "51b3dc54037971bb4b737d3ef10396c28c782abf22b078f41f0ad3c68fca2f59",
    "repo-lite-7-0001": "86ad0c63349564f28146410375e8a0ba2b3509ecda34da4c9f8960aede99fb4e",
    "repo-lite-7-0002": "1f80ebbffd42aa2b9618d1d02809d28120cb8952d1dce29edd4758618c027a4e",
    "repo-lite-7-0003": "97197bf79452acff495be3fe409eecd2944820c91dacee66580080d19750d0ff",
    "repo-lite-7-0004": "8a93d52c49b574d0250d757ed629c006c484434a9dc3027788bbe59162f24557",
    "repo-challenge-7-0000": "429f046b069adde75e91cf261ca554419ff497af5190df706f2e34ec3a7cd955",
    "repo-challenge-7-0001": "0fc2aaacf8bef3abefca7ebac8d34715be3364a7e9e03cb27c70d8e3af6f0fb2",
}
#: The same, drawn by ``RepoGameV5`` as released (main of 2026-12-07, before this split).
V5_GOLDEN = {
    "repo-lite-7-0000": "c3131f89671a9cadf0aa5537c875b73db0c3f5e4611af747360164ae0d89f2fb",
    "repo-lite-7-0001": "ec498a66c1bc90df19ed33bfca2354c92c3b40c114bc5c7d65229edc3426da5d",
    "repo-lite-7-0002": "9cbfa6770f0f59d7d001daa343d4bfaeeefec5d4b85a816f39b5184d997a3a92",
    "repo-lite-7-0003": "9ec1afc0c13d125ba8e3ca58f169a3a8030e6eeed11a51a8640cf52f3780f6a6",
    "repo-lite-7-0004": "1d07c1c6b1e98e6b71237fad380dd89f7ff55659ee712da465782848153f5392",
    "repo-challenge-7-0000": "58eb4a18536a7fa6d5f7e050ff4c7339df5164dc3fc4aeb195b07b24f278acf3",
    "repo-challenge-7-0001": "11d5b0d6a0e800906d7afac67f7ffd7ceffc5ea3419cfe7cc9c45af6ccc450e1",
}


@pytest.mark.parametrize(("cls", "golden"), [(RepoGameV4, V4_GOLDEN), (RepoGameV5, V5_GOLDEN)],
                         ids=["v4", "v5"])
def test_probe_drawing_is_the_released_one(cls: type[RepoGameV4],
                                           golden: dict[str, str]) -> None:
    got = {task["id"]: drawn_hash(cls, task) for task in TASKS}
    assert got == golden


def test_v4_and_v5_drawings_differ() -> None:
    assert all(V4_GOLDEN[k] != V5_GOLDEN[k] for k in V4_GOLDEN)
