"""The base env contract: invalid actions cost a turn, the budget truncates, nothing raises."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import built_tasks

from arena_gen.core.registry import make_env


def test_invalid_action_costs_a_turn_and_keeps_state() -> None:
    env = make_env(built_tasks("lights", count=1)[0])
    obs, info = env.reset()
    assert info == {"valid": True, "turn": 0, "turns_left": env.budget, "success": False,
                    "state": 0, "bulbs_on": 0, "n": env.game.n}
    obs, reward, terminated, truncated, info = env.step("banana")
    assert not info["valid"] and info["turn"] == 1 and info["state"] == 0
    assert obs.startswith("Invalid action: 'banana' is not a bulb index")
    assert (reward, terminated, truncated) == (0.0, False, False)


def test_budget_truncates_and_later_steps_do_not_raise() -> None:
    task = dataclasses.replace(built_tasks("lights", count=1)[0], budget=3)
    env = make_env(task)
    env.reset()
    results = [env.step("x") for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert [r[2] for r in results] == [False, False, False]
    obs, reward, terminated, truncated, info = env.step("0")
    assert truncated and not info["valid"] and "episode is over" in info["feedback"]


def test_witness_terminates_with_reward() -> None:
    task = built_tasks("lights", count=1)[0]
    env = make_env(task)
    env.reset()
    total = 0.0
    for i, action in enumerate(task.certificate.witness):
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        assert terminated == (i == len(task.certificate.witness) - 1)
    assert total == 1.0 and info["success"]


def test_a_bug_inside_the_rules_raises_instead_of_becoming_feedback() -> None:
    import pytest

    from arena_gen.core.game import ActionError
    from arena_gen.core.game_env import GameEnv

    task = built_tasks("lights", count=1)[0]
    env = make_env(task)

    class Broken(type(env.game)):  # type: ignore[misc]
        def step(self, state, action):
            raise KeyError("a bug in the rules")

    broken = GameEnv(Broken(task))
    broken.reset()
    obs, _, _, _, info = broken.step("not a bulb")  # a malformed action is still feedback
    assert not info["valid"] and "Invalid action" in obs
    with pytest.raises(KeyError, match="a bug in the rules"):
        broken.step("0")
    assert issubclass(ActionError, ValueError)


@pytest.mark.parametrize("env_name", ["lights", "trading", "energy", "repo"])
def test_step_lean_is_step_without_the_facts(env_name: str) -> None:
    """``step_lean`` returns ``step``'s observation, reward and flags on the same texts
    (witness, random and malformed ones, past the budget's end), and its info is exactly
    ``{"success": step's success}`` on a step that ends the episode or follows its end."""
    task = dataclasses.replace(built_tasks(env_name, count=1)[0], budget=25)
    full, lean = make_env(task), make_env(task)
    assert full.reset() == lean.reset()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([27, len(env_name)])))
    witness = task.certificate.witness
    ended = 0
    for turn in range(30):
        roll = rng.random()
        text = ("not an action" if roll < 0.15 else full.sample_action(rng) if roll < 0.4
                else witness[turn] if turn < len(witness) else "")
        *head, info = full.step(text)
        *lean_head, lean_info = lean.step_lean(text)
        assert lean_head == head
        over = head[2] or head[3]
        assert lean_info == ({"success": info["success"]} if over else {})
        ended += over
    assert ended >= 5  # the budget of 25 ends the episode; the later steps follow its end
