"""Trading probe drawings pinned (issue 38), and the price rule's moves from a matrix converted
once per game equal to the moves from the world's lists. Each golden is the sha256 of the
canonical JSON of every question with its answer drawn on a released task (v4 and v5 at the
start, v6 at the start, the middle and the end of the witness, attempts 0 and 1), recorded from
main of 2026-12-07 (1321140), before the draw converted the matrix once and asked for a try's
moves once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.core.game import WorldView
from arena_gen.envs.trading.game_v1 import price_deltas
from arena_gen.envs.trading.game_v4 import TradingGameV4
from arena_gen.envs.trading.game_v5 import TradingGameV5
from arena_gen.envs.trading.game_v6 import TradingGameV6
from tests.probe_goldens import drawn_hash, released_tasks

#: The first four Lite and first two moderate Challenge trading tasks.
TASKS = released_tasks("trading", (("lite", 4), ("challenge-moderate", 2)))

#: Per task id, the sha256 of its questions and answers drawn by 1321140's ``TradingGameV5``
#: (``TradingGameV4`` draws alike).
V5_GOLDEN = {
    "trading-lite-7-0000": "d12d6baa0c5026337037005500f0da2fea888cb68d58c85c566eb3c67f29cb28",
    "trading-lite-7-0001": "7b8860f91af9a4250d4fb6608d999ebf138cf3a9745710089e9cfcd43975085c",
    "trading-lite-7-0002": "65764f2224a15742dd4575f38ff266cc36d050e7131e45155702d631474bd43c",
    "trading-lite-7-0003": "c7d407dd73bf867b0f5d9e8dffb3c0a41f905a26cb78d9a7803b45b87ec15236",
    "trading-challenge-7-0000": "d32761814327a8cb960f426c925572037f3f846fe30b7a59a5407aa49100da94",
    "trading-challenge-7-0001": "d4b0e7e6933104413e4f2703c60f23aa09002a0497165327213c8a997398538a",
}
#: The same, drawn by 1321140's ``TradingGameV6`` along the witness.
V6_GOLDEN = {
    "trading-lite-7-0000": "dbcbdee16cbc75757939a5884b22c3c44d1abe2567c5e53ee5a5b453c95be9b9",
    "trading-lite-7-0001": "3be4e50cb54e3fd639078a94e8aca56b73ec13d9cdd5983f5aabd863b5b757c1",
    "trading-lite-7-0002": "b184b4fc7014ec516a57505ba1ee44a4bf9f21a505649bc43c0f028413ad2b35",
    "trading-lite-7-0003": "bdf9d2a842f04f03e631f77c2cfb5ee50d6db10506a98212bb3cc309c1d2d1e2",
    "trading-challenge-7-0000": "51c2456b4cec6b32068ee0da3e3ac85caa3555c05b059f9a3f5be66ffd2c1dba",
    "trading-challenge-7-0001": "b6a60ee07b174d7d001d6babb9d4c8db38d3dd5bf6137135ac64767f53bcd577",
}
GOLDEN = {"TradingGameV4": V5_GOLDEN, "TradingGameV5": V5_GOLDEN, "TradingGameV6": V6_GOLDEN}


@pytest.mark.parametrize("cls", [TradingGameV4, TradingGameV5, TradingGameV6],
                         ids=["v4", "v5", "v6"])
def test_probe_drawing_is_the_recorded_one(cls: type[TradingGameV4]) -> None:
    got = {task["id"]: drawn_hash(cls, task, along_witness=cls is TradingGameV6)
           for task in TASKS}
    assert got == GOLDEN[cls.__name__]


@given(st.integers(0, 5), st.lists(st.floats(-1.0, 1.0, allow_nan=False), min_size=1,
                                   max_size=12))
def test_moves_from_the_kept_matrix_are_the_worlds(which: int, news: list[float]) -> None:
    task = TASKS[which]
    game = TradingGameV5(WorldView(task["world"], task["public"], task["budget"]))
    news = (news * len(game.factors))[:len(game.factors)]
    plain = price_deltas({"matrix": task["world"]["matrix"], "changes": [news],
                          "noise": [[0.0] * len(game.stocks)]})[0]
    got = game.expected_moves(news)
    assert got.tobytes() == plain.tobytes()
    assert got.tobytes() == game.expected_moves(news).tobytes()  # the kept matrix is unchanged
    assert not np.shares_memory(got, game._factor_map())
