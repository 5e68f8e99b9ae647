"""The shaping potential of an energy world: minus the regret in margin-days against the
certificate's witness on the same day (v1, the odyssey-lite tasks: the whole-horizon LP's
dispatch; v2 and later: the receding-horizon verifier's).

The verdict is over the whole horizon: average stability above its target and thermal share
below its target (and no collapse). ``V`` banks both margins day by day, in days::

    V(s) = (stability_sum - target_stability x day)
           + (target_carbon x cum_supply - cum_thermal) / mean daily demand

Each day adds its stability's excess over the target (a violation day costs 0.5 of it) and its
supply's carbon headroom in days of mean demand; at the horizon ``V / H`` is about the
stability slack plus the carbon slack the certificate records (exactly so for the first term;
the second divides by the demand where the share divides by the supply). ``V*(t)`` is ``V`` of
the certificate's witness (the v2 verifier's receding-horizon perfect-foresight dispatch) at day
``t``, and ``Phi(s) = V(s) - V*(day(s))``, 0 along the witness, at the start and at every end
(horizon or collapse: see :mod:`arena_gen.core.witness_regret`). An invalid action does not
advance the day nor change the state, so it shapes 0. A task without a certificate (a draft)
runs the v2 verifier for its witness. The witness is a certified feasible schedule, not an
optimum: any potential keeps the optimal policies, and this one says how far behind a known
successful schedule the agent's margins are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena_gen.core.game import Game
from arena_gen.core.witness_regret import certificate_witness, regret_potential
from arena_gen.envs.energy.game_v1 import EnergyGame, GridState


def margin_days(game: EnergyGame) -> Callable[[GridState], float]:
    """``V`` of the module docstring for ``game``'s world."""
    rules = game.rules
    target_s, target_c = rules.target_stability, rules.target_carbon
    total = sum(rules.demand[:rules.horizon])
    mean_demand = total / rules.horizon if total > 0 and rules.horizon > 0 else 1.0

    def value(state: GridState) -> float:
        return ((state.stability_sum - target_s * state.day)
                + (target_c * state.cum_supply - state.cum_thermal) / mean_demand)

    return value


def verifier_witness(game: EnergyGame) -> list[str]:
    """The certificate's witness, or for a task without one its own version's verifier's."""
    found = certificate_witness(game.task)
    if found is not None:
        return found
    from arena_gen.core import registry

    return list(registry.for_task(game.task).load("verifier")(game.task).witness)


def potential(game: Game[Any, Any, Any]) -> Callable[[GridState], float]:
    """The env's ``potential`` part: Phi of an energy game's state."""
    if not isinstance(game, EnergyGame):
        raise TypeError(f"the energy potential reads the energy rules, not "
                        f"{type(game).__name__}")
    return regret_potential(game, measure="energy-margin-days", value=margin_days(game),
                            day=lambda state: state.day, horizon=game.rules.horizon,
                            witness=lambda: verifier_witness(game))
