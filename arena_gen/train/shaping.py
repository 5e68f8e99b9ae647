"""Certified dense rewards: potential-based shaping from the env's certificate machinery.

:func:`shaped` wraps a text env so each step's reward is the env's own reward plus
``F(s, s') = gamma * Phi(s') - Phi(s)`` (Ng, Harada and Russell 1999), with ``gamma = 1`` by
default: on the undiscounted episodic return the shaping terms telescope, so an episode's shaped
return is its sparse return plus ``Phi(final) - Phi(initial)`` and the optimal policies are the
sparse reward's. ``Phi`` is the env spec's ``potential`` part, read from the TRUE state the game
holds (lights, repo: minus the exact distance to success, 0 at success; trading, energy: minus
the regret against the certificate's witness on the same day, 0 at the start and at every end,
see :mod:`arena_gen.core.witness_regret`): the agent's observation is the wrapped env's,
unchanged; ``info`` carries ``potential``, ``shaping`` and ``sparse_reward``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, SupportsFloat

import gymnasium as gym

from arena_gen.core import registry
from arena_gen.core.errors import RegistryError
from arena_gen.core.game_env import GameEnv


def potential_of(spec: registry.EnvSpec, game: Any) -> Callable[[Any], float]:
    """Phi of ``game``'s states by its env spec's ``potential`` part (an error names the env
    when it has none)."""
    if spec.potential is None:
        raise RegistryError(f"env {spec.name!r} v{spec.version} has no certified potential, "
                            f"so it has no shaped reward mode (see docs/training.md)")
    factory: registry.PotentialFactory = spec.load("potential")
    return factory(game)


class ShapedEnv(gym.Wrapper[str, str, str, str]):
    """A text env whose reward is shaped by its certified potential (see the module docstring)."""

    def __init__(self, env: gym.Env[str, str], *, gamma: float = 1.0,
                 spec: registry.EnvSpec | None = None) -> None:
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, GameEnv):
            raise TypeError(f"shaping reads the game's true state: {type(base).__name__} is not "
                            f"an arena-gen GameEnv")
        self.base = base
        self.gamma = float(gamma)
        self.phi = potential_of(spec or registry.for_task(base.task), base.game)
        self.potential = self.phi(base.state)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.potential = self.phi(self.base.state)
        info["potential"] = self.potential
        return obs, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        before, self.potential = self.potential, self.phi(self.base.state)
        shaping = self.gamma * self.potential - before
        info.update(potential=self.potential, shaping=shaping, sparse_reward=float(reward))
        return obs, float(reward) + shaping, terminated, truncated, info


def shaped(env: gym.Env[str, str], *, gamma: float = 1.0,
           spec: registry.EnvSpec | None = None) -> ShapedEnv:
    """``env`` with the certified dense reward (``spec``: the env version whose potential to
    use; by default the one of the env's task)."""
    return ShapedEnv(env, gamma=gamma, spec=spec)
