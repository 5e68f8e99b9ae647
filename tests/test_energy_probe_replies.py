"""Energy agents answer probes from a side copy that shares what predicting only reads (issue
38's probe cost): every reply equals the one a deep copy of the agent gave (as released), and
answering leaves the agent byte for byte as it was, at every fifth turn of whole episodes of
every energy agent that answers probes (the learners, the model-free rung, the planners)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from test_probes_envs import released

from arena_gen.core import registry
from arena_gen.core.episode import Episode
from arena_gen.core.probes import draw
from arena_gen.envs.energy.agents.planner import EnergyInductivePlanner, EnergyPlanner
from arena_gen.envs.energy.agents.probe_replies import belief_replies


def deep_replies(agent: EnergyPlanner, probes: list[Any]) -> list[str]:
    """The replies as released: predicted by a deep copy of the agent."""
    mind = copy.deepcopy(agent)

    def believe(source: str, day: int) -> float:
        return float(mind.predict(source, np.array([day]), day)[0][0])
    return belief_replies(probes, agent.public, believe)


def agents() -> list[tuple[str, Any, str]]:
    """(name, factory, mode) of each energy agent with ``answer_probes``."""
    spec = registry.get("energy", 5)
    return [("heuristic", spec.load("heuristic"), "inductive"),
            ("planner", spec.load("planner"), "with-rules"),
            *((name, f, "inductive") for name, f in spec.load_model_free().items()),
            ("v2 heuristic", EnergyInductivePlanner, "inductive"),
            ("v2 planner", EnergyPlanner, "with-rules")]


@pytest.mark.parametrize(("name", "factory", "mode"), agents(), ids=[a[0] for a in agents()])
def test_side_copy_replies_are_the_deep_copys(name: str, factory: Any, mode: str) -> None:
    asked = 0
    for task in released("energy", "lite")[:2]:
        agent = factory()
        episode = Episode(task, agent, mode=mode, probes=8)
        game = episode.probe_game
        turn = 0
        while not episode.over:
            episode.step(agent.act(episode.obs), 0.0)
            turn += 1
            if turn % 5:
                continue
            probes = draw(game, episode.env.state, episode.visited, task.sha256, 0, turn)
            before = pickle.dumps(agent)
            got = agent.answer_probes(probes)
            assert pickle.dumps(agent) == before, (name, task.id, turn)
            assert got == deep_replies(agent, probes), (name, task.id, turn)
            asked += len(probes)
    assert asked >= 8 * 20
