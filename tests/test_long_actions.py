"""An action longer than the text space allows is malformed as a whole, in every env: the repo
env echoed a 20 MB command into its observation (issue 41). The rule lives in the text layer
(``Game.act``), so the env and the judge's replay agree on it."""

from __future__ import annotations

from conftest import built_tasks

from arena_gen.core.game import MAX_TEXT
from arena_gen.core.registry import make_env


def test_a_20mb_action_costs_a_turn_and_is_not_echoed(env_name: str) -> None:
    (task,) = built_tasks(env_name, count=1)
    env = make_env(task)
    env.reset()
    first = env.render()
    huge = "pip install " + "x" * (20 * 1024 * 1024) if env_name == "repo" else "y" * (20 << 20)
    obs, _, _, _, info = env.step(huge)
    assert info["valid"] is False and info["turn"] == 1
    assert f"an action of {len(huge)} characters; at most {MAX_TEXT} are read" in obs
    assert len(obs) < len(first) + 2000, len(obs)
    state, event = env.game.act(env.game.initial(), huge)  # what the judge's replay sees
    assert event.feedback == info["feedback"] and event.valid is False
    # at the bound, the action is parsed as before (the game's own message)
    obs, _, _, _, info = env.step("z" * MAX_TEXT)
    assert "characters; at most" not in obs
