"""AI Trading sampler: a hidden factor matrix, initial prices, a factor timeline and price noise.

Each component comes from its own child seed (``component_rngs``), so every task has its own
timeline (the released data shared one timeline across five tasks; we do not). Stored floats are
rounded: W to 3 decimals (so the with-rules disclosure is exact), initial prices to cents, factor
changes and noise to 4 decimals. The episode is then fully determined by the stored world.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.presets import Preset, knob
from arena_gen.core.seeds import component_rngs, task_index_of
from arena_gen.core.task import Certificate, Draft
from arena_gen.envs.trading.game_v1 import TradingGame

W_MAX = 1.8
SIGMA_F = 0.1

@dataclass(frozen=True)
class TradingPreset(Preset):
    """The knobs of one trading suite (ranges inclusive; ``stocks``/``factors`` are [lo, hi])."""

    count: int = knob(1, 10_000, kind=int)
    stocks: tuple[int, int] = knob(1, 64, kind=tuple)
    factors: tuple[int, int] = knob(1, 64, kind=tuple)
    #: Task i takes grid cell i mod |grid| (S x F) instead of a uniform draw.
    cover_grid: bool = knob(kind=bool)
    horizon: int = knob(2, 100_000, kind=int)
    noise_scale: float = knob(0.0, 10.0)
    cost_rate: float = knob(0.0, 0.5)
    initial_cash: float = knob(1, 1e12)
    #: Reject worlds whose greedy oracle earns less than this profit rate.
    min_oracle_profit: float = knob(-1.0, 1e6)
    max_attempts: int = knob(1, 100_000, kind=int)


# min_oracle_profit: the released Lite configs' greedy oracle earns +55% to +378% in 120 days
# (about +211% on average), so +20% only rejects dull worlds. Over 1000 noisy days with fees the
# oracle compounds to many times the cash, and +100% is a floor far below that.
PRESETS: dict[str, TradingPreset] = {
    "lite": TradingPreset(count=30, stocks=(5, 9), factors=(4, 6), cover_grid=True,
                          horizon=120, noise_scale=0.0, cost_rate=0.0, initial_cash=50000,
                          min_oracle_profit=0.2, max_attempts=200),
    "challenge": TradingPreset(count=10, stocks=(10, 16), factors=(6, 10), cover_grid=False,
                               horizon=1000, noise_scale=0.3, cost_rate=0.001,
                               initial_cash=50000, min_oracle_profit=1.0, max_attempts=200),
}


def grid_shape(config: Mapping[str, Any], seq: np.random.SeedSequence,
               draw: np.random.Generator) -> tuple[int, int]:
    """S x F: task i takes grid cell i mod |grid| when covering the grid, else a uniform draw."""
    s_lo, s_hi = (int(x) for x in config["stocks"])
    f_lo, f_hi = (int(x) for x in config["factors"])
    cells = [(s, f) for f in range(f_lo, f_hi + 1) for s in range(s_lo, s_hi + 1)]
    index = task_index_of(seq)
    if config.get("cover_grid") and index is not None:
        return cells[index % len(cells)]
    s, f = cells[int(draw.integers(len(cells)))]
    return s, f


def fmt_coef(value: float, first: bool) -> str:
    """A signed coefficient for the rules text (``1.234`` or ``- 0.567``)."""
    if first:
        return f"{value:.3f}"
    return f"{'-' if value < 0 else '+'} {abs(value):.3f}"


def rules_text(stocks: list[str], factors: list[str], matrix: list[list[float]],
               noise_scale: float, cost_rate: float) -> str:
    """The with-rules disclosure: W one stock per line, the noise scale and the cost rate."""
    lines = ["Each day, every price moves by its row of the factor matrix times the day's factor "
             "changes dF (plus noise), floored at 0.1:"]
    for s, row in zip(stocks, matrix, strict=True):
        pairs = enumerate(zip(row, factors, strict=True))
        terms = " ".join(f"{fmt_coef(w, i == 0)} x d{f}" for i, (w, f) in pairs)
        lines.append(f"{s} moves by {terms}")
    lines.append(f"Price noise: normal(0, {noise_scale:g}) per stock per day." if noise_scale
                 else "Price noise: none (prices follow the factor map exactly).")
    lines.append(f"Transaction cost: {cost_rate:g} of the traded value, on buys and sells."
                 if cost_rate else "Transaction cost: none.")
    return "\n".join(lines)


def public_view(stocks: list[str], factors: list[str], horizon: int, cash: float,
                cost_rate: float) -> dict[str, Any]:
    """What the agent is told at the start."""
    fee = (f"Every trade pays a fee of {cost_rate:g} x its value."
           if cost_rate else "Trading is free of fees.")
    intro = (f"You trade {len(stocks)} stocks ({stocks[0]} to {stocks[-1]}) for {horizon} days "
             f"starting with {cash:g} cash. Prices are driven by hidden market factors "
             f"({factors[0]} to {factors[-1]}); each day you see the news of tomorrow's factor "
             f"changes. Each day send one JSON action, e.g. "
             f'{{"buy": {{"{stocks[0]}": 10}}, "sell": {{"{stocks[-1]}": 5}}}}, or {{}} to hold. '
             f"Sells execute first, then buys; whole shares only. {fee} "
             f"Goal: maximise your total value at day {horizon}.")
    return {"stocks": stocks, "factors": factors, "horizon": horizon, "initial_cash": cash,
            "cost_rate": cost_rate, "intro": intro,
            "action_format": '{"buy": {"S0": 10}, "sell": {"S1": 5}}'}


def public_again(public: Mapping[str, Any], budget: int,
                 config: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """The public view and budget (one turn a day) :func:`make_draft` gives a task of these
    public facts (the preset's horizon when its ``config`` is given): what a sealed public
    copy is checked by."""
    horizon = int(config["horizon"] if config is not None else public["horizon"])
    view = public_view(list(public["stocks"]), list(public["factors"]), horizon,
                       public["initial_cash"], public["cost_rate"])
    return view, horizon


def make_draft(*, matrix: list[list[float]], initial_prices: list[float],
               changes: list[list[float]], noise: list[list[float]], noise_scale: float,
               cost_rate: float, initial_cash: float, min_oracle_profit: float,
               extra_params: dict[str, Any] | None = None,
               news: list[str] | None = None, game: type[TradingGame] = TradingGame,
               rules_note: str | None = None) -> Draft:
    """Assemble a trading Draft from its world components (sampler and importer share this);
    the rubric is ``game``'s own (v2 passes its game)."""
    n_stocks, n_factors, horizon = len(matrix), len(matrix[0]), len(changes)
    stocks = [f"S{i}" for i in range(n_stocks)]
    factors = [f"F{j}" for j in range(n_factors)]
    world = {"stocks": stocks, "factors": factors, "horizon": horizon,
             "initial_cash": initial_cash, "cost_rate": cost_rate, "noise_scale": noise_scale,
             "matrix": matrix, "initial_prices": initial_prices, "changes": changes,
             "noise": noise}
    if news is not None:  # imported worlds keep the released news wording
        world["news"] = news
    params = {"stocks": n_stocks, "factors": n_factors, "horizon": horizon,
              "noise_scale": noise_scale, "cost_rate": cost_rate, "initial_cash": initial_cash,
              "min_oracle_profit": min_oracle_profit, **(extra_params or {})}
    return Draft(params=params, budget=horizon,
                 public=public_view(stocks, factors, horizon, initial_cash, cost_rate),
                 world=world,
                 rules_text=rules_text(stocks, factors, matrix, noise_scale, cost_rate)
                 + (f"\n{rules_note}" if rules_note else ""),
                 rubric=game.rubric(params, world))


def _rounded(values: np.ndarray, digits: int) -> list[Any]:
    out: list[Any] = (np.round(values, digits) + 0.0).tolist()  # + 0.0 turns -0.0 into 0.0
    return out


def sample(config: Mapping[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a preset (or its dict) and one attempt's seed stream."""
    return _sample(TradingPreset.of(config), seq, W_MAX)


def _sample(config: Mapping[str, Any], seq: np.random.SeedSequence, w_max: float,
            **draft: Any) -> Draft:
    rngs = component_rngs(seq, ["shape", "matrix", "prices", "timeline", "noise"])
    n_stocks, n_factors = grid_shape(config, seq, rngs["shape"])
    horizon = int(config["horizon"])
    noise_scale = float(config["noise_scale"])
    matrix = rngs["matrix"].uniform(-w_max, w_max, size=(n_stocks, n_factors))
    prices = rngs["prices"].uniform(10.0, 100.0, size=n_stocks)
    changes = rngs["timeline"].normal(0.0, SIGMA_F, size=(horizon, n_factors))
    noise = (rngs["noise"].normal(0.0, noise_scale, size=(horizon, n_stocks)) if noise_scale
             else np.zeros((horizon, n_stocks)))
    return make_draft(matrix=_rounded(matrix, 3), initial_prices=_rounded(prices, 2),
                      changes=_rounded(changes, 4), noise=_rounded(noise, 4),
                      noise_scale=noise_scale, cost_rate=float(config["cost_rate"]),
                      initial_cash=float(config["initial_cash"]),
                      min_oracle_profit=float(config["min_oracle_profit"]), **draft)


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Return why a verified candidate is rejected, or None to accept it."""
    facts = cert.facts
    n_factors = int(draft.params["factors"])
    if not cert.solvable:
        return "unprofitable oracle: it cannot beat the initial cash"
    if facts.get("price_floored"):
        return f"floored price: a price hits the 0.1 floor (min {facts.get('min_price')})"
    m = facts.get("identifiability_day")
    if m is None or m > 3 * n_factors:
        return (f"unidentifiable news: it reaches full rank on day {m}, later than "
                f"3F = {3 * n_factors}")
    if facts["oracle_profit"] < float(draft.params["min_oracle_profit"]):
        return (f"flat market: oracle profit {facts['oracle_profit']:.3f} < min_oracle_profit "
                f"{draft.params['min_oracle_profit']}")
    return None
