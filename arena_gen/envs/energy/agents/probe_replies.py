"""Energy agents' replies to probes, from the efficiencies they believe a day will have.

An agent's beliefs make a one-day world (its predicted efficiencies, the public capacities,
prices and targets, the question's demand and budget); the game compiled from that world
answers the dispatch question, so the agent restates no rule. An efficiency question is
answered with the offered value nearest the belief.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe
from arena_gen.envs.energy.game_v1 import DISPATCH_OK, EFFICIENCY, GENERATORS, EnergyGame


def belief_world(public: Mapping[str, Any], day: int, demand: float, budget: float,
                 eff: Mapping[str, float]) -> dict[str, Any]:
    """A world whose day ``day`` is what the agent believes of it (earlier days alike)."""
    days = day + 1
    return {"horizon": days, "demand": [demand] * days, "budget": [budget] * days,
            **{f"eff_{k}": [float(eff[k])] * days for k in GENERATORS},
            "capacity": dict(public["capacity"]), "prices": dict(public["prices"]),
            "initial_rated": dict(public["initial_rated"]),
            "target_stability": float(public["target_stability"]),
            "target_carbon": float(public["target_carbon"])}


#: A world of beliefs: (public view, day, demand, budget, efficiencies) -> world.
WorldOf = Callable[[Mapping[str, Any], int, float, float, Mapping[str, float]], dict[str, Any]]


def belief_replies(probes: Sequence[Probe], public: Mapping[str, Any],
                   believe: Callable[[str, int], float],
                   generators: Sequence[str] = GENERATORS, world_of: WorldOf | None = None,
                   game_of: Callable[[WorldView], EnergyGame] = EnergyGame) -> list[str]:
    """Per probe, the reply implied by ``believe(source, day)`` (an efficiency); a game with
    other sources (v7's sites) names its ``generators``, its belief world and its game."""
    world_of = belief_world if world_of is None else world_of
    out = []
    for probe in probes:
        sub = probe.subject
        day = int(sub["day"])
        if probe.kind == EFFICIENCY and probe.choices is not None:
            guess = believe(str(sub["source"]), day)
            gaps = [abs(float(v) - guess) for v in sub["options"]]
            out.append(probe.choices[gaps.index(min(gaps))])
        elif probe.kind == DISPATCH_OK:
            eff = {k: believe(k, day) for k in generators}
            world = world_of(public, day, float(sub["demand"]), float(sub["budget"]), eff)
            game = game_of(WorldView(world=world))
            out.append(game.probe_answer(game.initial(), probe))
        else:
            out.append("")
    return out
