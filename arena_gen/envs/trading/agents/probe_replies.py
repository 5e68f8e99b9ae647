"""Trading agents' replies to move probes, from whatever forecast of tomorrow's moves they hold.

A learner answers from its fitted map, the with-rules planner from the W it read: the game's
``move_sign`` and ``move_rank`` questions (:class:`~..game_v4.TradingGameV4`) carry the news
vector, so a forecast ``news -> moves`` answers both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np

from arena_gen.core.probes import Probe
from arena_gen.envs.trading.game_v4 import MOVE_RANK, MOVE_SIGN


def _agreement(order: Sequence[str], predicted: Sequence[str]) -> int:
    """How many pairs ``order`` puts in the forecast's order."""
    at = {s: i for i, s in enumerate(predicted)}
    return sum(at[a] < at[b] for a, b in combinations(order, 2))


def forecast_replies(probes: Sequence[Probe], stocks: Sequence[str],
                     predict: Callable[[np.ndarray], np.ndarray]) -> list[str]:
    """Per probe, the reply the forecast ``predict`` (news -> moves per stock) implies: the
    sign of the stock's forecast move, or the offered order closest to the forecast's."""
    index = {s: i for i, s in enumerate(stocks)}
    out = []
    for probe in probes:
        moves = np.asarray(predict(np.asarray(probe.subject["news"], dtype=float)))
        if probe.kind == MOVE_SIGN:
            out.append("up" if moves[index[probe.subject["stock"]]] > 0 else "down")
        elif probe.kind == MOVE_RANK and probe.choices is not None:
            predicted = sorted(probe.subject["stocks"], key=lambda s: -float(moves[index[s]]))
            scores = [_agreement(o, predicted) for o in probe.subject["options"]]
            out.append(probe.choices[int(np.argmax(scores))])
        else:
            out.append("")
    return out
