"""AI Trading: learn a hidden linear map from factor news to price moves, and trade on it.

The rules are :class:`TradingGame` (its docstring holds the Gymnasium sections: action space,
observation, rewards, episode end, information and rubric); this module also holds the one
price rule (:func:`price_path`) and the one trade rule (:func:`execute`, with
:func:`affordable_qty` and :func:`sell_all_but` for sizing orders), which the verifier's oracle
and the ridge policy use too.

Decisions where the spec is silent:
    - Order of operations (pinned by the released OdysseyArena data, whose greedy oracle this
      reproduces to 0.1 point): on day t the agent trades at prices p(t), having seen the news of
      day t+1; then the day advances and day t+1's changes (and noise) move the prices. Price
      deltas are ``sum_f W[:, f] * dF[f]`` accumulated in factor order, then noise is added, then
      the floor at 0.1 applies; no rounding of prices (they are only shown with 2 decimals).
    - Fee = price x qty x cost_rate on every executed buy and sell. A buy needs
      ``price x qty + fee <= cash``. The final value is marked to market (no liquidation fee).
    - An unaffordable buy is refused with a reason but the action stays valid (the other orders
      still execute), as the spec describes; a sell above the holding is capped, not refused.
    - ``{}``, ``{"buy": {}, "sell": {}}`` and zero quantities are valid holds. An integral float
      such as ``10.0`` is accepted as 10; booleans and strings are not quantities.
    - News is generated from the stored (4-decimal) changes; an imported world may carry its
      released news lines instead (``world.news``), shown verbatim.
    - The cost rate is public (a trader knows the fee schedule; fees also show in the feedback);
      the noise scale and W are disclosed only in with-rules mode.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena_gen.core.game import ActionError, Check, Event, Facts, Game, TaskLike
from arena_gen.core.task import RubricItem

PRICE_FLOOR = 0.1
MAX_QTY = 10**24  # only guards float overflow: compounding oracles reach ~1e18 shares
KEYS = ("sell", "buy")

#: The rubric item ids (every version keeps the first two; v2 replaces the third).
PROFITABLE, BEATS_HOLD, HALF_ORACLE = "profitable", "beats_hold", "half_oracle"
#: The texts of the two items every version keeps.
BASE_RUBRIC = (
    RubricItem(PROFITABLE, "The final total value is above the initial cash."),
    RubricItem(BEATS_HOLD, "The profit rate is above the certificate's equal-weight "
                           "buy-and-hold baseline."),
)


# -- news -----------------------------------------------------------------------------------------
def news_phrase(name: str, change: float) -> str:
    """One factor's news, with the released OdysseyArena wording and thresholds."""
    if change > 0.05:
        return f"{name} increased significantly ({change:+.2f})"
    if change > 0.01:
        return f"{name} rose slightly ({change:+.2f})"
    if change < -0.05:
        return f"{name} decreased significantly ({change:+.2f})"
    if change < -0.01:
        return f"{name} dropped slightly ({change:+.2f})"
    return f"{name} stable ({change:.2f})"


#: One factor's phrase in a news line: name and the shown value (what an agent can read).
NEWS_ITEM = re.compile(r"(F\d+) [a-z ]+ \(([+-]?\d+\.\d+)\)")


def news_text(names: list[str], changes: list[float]) -> str:
    """A day's news line: every factor's phrase joined with `` | ``."""
    return " | ".join(news_phrase(n, float(c)) for n, c in zip(names, changes, strict=True))


# -- prices (the one price rule) -----------------------------------------------------------------
def price_deltas(world: dict[str, Any]) -> np.ndarray:
    """Daily price moves (D x S) before the floor: W @ dF(t) in factor order, plus noise(t)."""
    matrix = np.asarray(world["matrix"], dtype=float)
    changes = np.asarray(world["changes"], dtype=float)
    deltas = np.zeros((changes.shape[0], matrix.shape[0]))
    for f in range(matrix.shape[1]):  # explicit order: no BLAS, same bits on every machine
        deltas = deltas + changes[:, f:f + 1] * matrix[:, f]
    return deltas + np.asarray(world["noise"], dtype=float)


def price_path(world: dict[str, Any]) -> tuple[np.ndarray, bool]:
    """Prices of days 0..D (rows) and whether the 0.1 floor ever applied."""
    deltas = price_deltas(world)
    start = np.asarray(world["initial_prices"], dtype=float)
    path = np.add.accumulate(np.vstack([start, deltas]), axis=0)
    if path.min() >= PRICE_FLOOR:
        return path, False
    path = np.empty_like(path)
    path[0] = start
    for t in range(deltas.shape[0]):
        path[t + 1] = np.maximum(path[t] + deltas[t], PRICE_FLOOR)
    return path, True


# -- orders (the one trade rule) ------------------------------------------------------------------
@dataclass
class Order:
    """A parsed action: sells then buys, as ``(stock index, quantity)`` in the order given."""

    sells: list[tuple[int, int]] = field(default_factory=list)
    buys: list[tuple[int, int]] = field(default_factory=list)


def _quantity(symbol: str, side: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = repr(value)[:40]
        raise ValueError(f"{side} quantity for {symbol} must be a whole number, got {shown}")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(f"{side} quantity for {symbol} must be a whole number, got {value!r}")
        value = int(value)
    if value < 0:
        raise ValueError(f"{side} quantity for {symbol} is negative ({value})")
    if value > MAX_QTY:
        raise ValueError(f"{side} quantity for {symbol} is too large (max {MAX_QTY})")
    return int(value)


def parse_order(text: str, stocks: list[str]) -> Order:
    """Parse an action, or raise ValueError with a one-line reason (nothing may execute)."""
    body = text.strip()
    if not body:
        raise ValueError('empty action; write JSON like {"buy": {"S0": 10}, "sell": {}}')
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not valid JSON ({str(exc)[:60]})") from None
    if not isinstance(data, dict):
        raise ValueError('the action must be a JSON object like {"buy": {...}, "sell": {...}}')
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise ValueError(f"unknown key {str(unknown[0])[:30]!r}; use only 'buy' and 'sell'")
    index = {s: i for i, s in enumerate(stocks)}
    order = Order()
    for side in KEYS:
        part = data.get(side, {})
        if part is None:
            part = {}
        if not isinstance(part, dict):
            raise ValueError(f"'{side}' must map stock symbols to quantities")
        for symbol, value in part.items():
            if symbol not in index:
                raise ValueError(f"unknown symbol {symbol[:30]!r}; stocks are {stocks[0]} to "
                                 f"{stocks[-1]}")
            qty = _quantity(symbol, side, value)
            if qty:
                (order.sells if side == "sell" else order.buys).append((index[symbol], qty))
    return order


def order_text(order: Order, stocks: list[str]) -> str:
    """The action text of an order (what the oracle and the heuristic agent send)."""
    data: dict[str, dict[str, int]] = {}
    if order.sells:
        data["sell"] = {stocks[i]: q for i, q in order.sells}
    if order.buys:
        data["buy"] = {stocks[i]: q for i, q in order.buys}
    return json.dumps(data, separators=(",", ":"))


def buy_total(price: float, qty: int, cost_rate: float) -> float:
    """Cash a buy needs: price x qty plus the fee."""
    value = price * qty
    return value + value * cost_rate


def affordable_qty(cash: float, price: float, cost_rate: float) -> int:
    """A whole quantity whose buy total fits in ``cash`` by the execute rule (the largest one, up
    to float resolution: past 2^40 shares it may leave a few shares' worth of cash unspent)."""
    if not cash > 0:
        return 0
    qty = min(int(cash / (price * (1.0 + cost_rate))), MAX_QTY)
    step = max(1, qty >> 40)
    while qty > 0 and buy_total(price, qty, cost_rate) > cash:
        qty = max(0, qty - step)
    return qty


@dataclass
class Fill:
    """What one order did: new cash and holdings, the feedback parts, refused buys."""

    cash: float
    holdings: list[int]
    notes: list[str]
    refused: int = 0


def sell_all_but(cash: float, holdings: list[int], prices: np.ndarray | list[float],
                 keep: int | None, cost_rate: float) -> float:
    """Cash after selling every holding except ``keep`` (used to size planned buys exactly)."""
    order = Order(sells=[(j, h) for j, h in enumerate(holdings) if h > 0 and j != keep])
    return execute(cash, holdings, prices, order, cost_rate).cash


def execute(cash: float, holdings: list[int], prices: np.ndarray | list[float], order: Order,
            cost_rate: float, stocks: list[str] | None = None) -> Fill:
    """Run an order at today's prices: sells first (capped), then buys in order if affordable."""
    held = list(holdings)
    notes: list[str] = []
    refused = 0
    names = stocks or [f"S{i}" for i in range(len(held))]
    for i, qty in order.sells:
        done = min(qty, held[i])
        if done == 0:
            notes.append(f"nothing to sell of {names[i]} (holding 0)")
            continue
        value = float(prices[i]) * done
        fee = value * cost_rate
        cash += value - fee
        held[i] -= done
        capped = f" (capped from {qty})" if done < qty else ""
        notes.append(f"sold {done} {names[i]} at {float(prices[i]):.2f}{capped}"
                     + (f", fee {fee:.2f}" if cost_rate else ""))
    for i, qty in order.buys:
        total = buy_total(float(prices[i]), qty, cost_rate)
        if total > cash:
            refused += 1
            notes.append(f"refused buy of {qty} {names[i]}: needs {total:.2f}, cash {cash:.2f}")
            continue
        cash -= total
        held[i] += qty
        notes.append(f"bought {qty} {names[i]} at {float(prices[i]):.2f}"
                     + (f", fee {total - float(prices[i]) * qty:.2f}" if cost_rate else ""))
    return Fill(cash=cash, holdings=held, notes=notes, refused=refused)


def total_value(cash: float, holdings: Sequence[int], prices: np.ndarray | list[float]) -> float:
    """Cash plus holdings marked at ``prices`` (summed in stock order)."""
    px = prices.tolist() if isinstance(prices, np.ndarray) else [float(p) for p in prices]
    if len(px) != len(holdings):
        raise ValueError(f"{len(holdings)} holdings but {len(px)} prices")
    return cash + sum(map(operator.mul, holdings, px))


# -- the game -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Book:
    """A trading state: the day, cash, whole-share holdings per stock and refused buys so far."""

    day: int
    cash: float
    holdings: tuple[int, ...]
    refused: int = 0


@dataclass(frozen=True)
class TradingFacts(Facts):
    """What judges and logs know of a trading state."""

    day: int
    horizon: int
    cash: float
    holdings: dict[str, int]
    prices: list[float]
    total_value: float
    initial_cash: float
    profit_rate: float
    refused_buys: int

    def to_dict(self) -> dict[str, Any]:
        """The same dict as ``dataclasses.asdict``, built directly (it runs every turn of every
        ladder episode, and the generic deep copy was a third of a 1000-day episode's time)."""
        return {"day": self.day, "horizon": self.horizon, "cash": self.cash,
                "holdings": dict(self.holdings), "prices": list(self.prices),
                "total_value": self.total_value, "initial_cash": self.initial_cash,
                "profit_rate": self.profit_rate, "refused_buys": self.refused_buys}


class TradingGame(Game[Book, Order, TradingFacts]):
    """AI Trading.

    Description:
        S stocks ``S0 ..`` and F market factors ``F0 ..``. Each day the factors change; every
        stock's price moves by a hidden linear combination of those changes (the factor matrix
        W, S x F) plus stored Gaussian noise: ``p(t+1) = max(p(t) + W @ dF(t+1) + noise(t+1),
        0.1)``. The agent sees tomorrow's factor news (2 decimals) today, so a trader that has
        learned W can profit.
    Action Space:
        A JSON object ``{"buy": {"S0": 10}, "sell": {"S1": 5}}`` (either key may be missing or
        empty). Quantities are non-negative whole numbers, symbols must exist. Sells run first
        (each capped at the shares held), then buys in the order given; a buy runs in full when
        cash covers price x qty plus the fee, otherwise that buy alone is refused and the
        feedback says so. Malformed JSON, unknown keys, unknown symbols, negative, fractional,
        non-numeric or absurdly large (> 10^24) quantities reject the whole action (nothing
        executes, ``info["valid"]`` is False), and the day still advances: it counts as a hold.
    Observation:
        The feedback line (what executed, the fees, what was refused), then the day, each
        stock's price (2 decimals) and holding, cash, total value and the news of the next
        day's factor changes (``F0 rose slightly (+0.03) | ...``). No turns-left line (one
        decision per day; the day is shown).
    Starting State:
        Day 0: all cash (``initial_cash``), no shares, the initial prices, the news of day 1.
    Rewards:
        The day's change in total value (cash + holdings x prices); their sum is final profit.
    Episode End:
        Terminated when day ``horizon`` is reached (one decision per day, budget = horizon).
    Information:
        ``day``, ``horizon``, ``cash``, ``holdings`` (symbol -> shares), ``prices`` (today's),
        ``total_value``, ``initial_cash``, ``profit_rate`` (value / initial cash - 1),
        ``refused_buys`` (buys refused for want of cash so far); plus the shared ``valid``,
        ``turn``, ``turns_left``, ``success`` and ``feedback`` of the text env.
    Rubric:
        ``profitable`` (value above initial cash), ``beats_hold`` (profit rate above the
        certificate's equal-weight buy-and-hold ``hold_profit``), ``half_oracle`` (at least
        half the certificate's perfect-foresight ``oracle_profit``); all assessed at the horizon
        only (not assessable before it, and the two baselines not assessable without a
        certificate). Success: all three met.
    Arguments:
        ``task``: a trading :class:`~arena_gen.core.task.Task`, or a Draft (anything with
        ``world``, ``public`` and ``budget``: the verifier compiles the game from its draft).
    Version History:
        v1: initial release. (arena-gen 0.x, Game refactor: the ``success`` flag in ``info``
        and trajectories is now the rubric verdict, as the scorer always counted it; before,
        it meant value above initial cash. Dynamics, observations and certificates are
        unchanged, so the version is not bumped and released suites stay byte-identical.)
        v2: :class:`TradingGameV2` (same rules; success from the W-known planner).
    """

    shows_turns_left = False

    def __init__(self, task: TaskLike) -> None:
        super().__init__(task)
        world = task.world
        self.stocks: list[str] = list(world["stocks"])
        self.factors: list[str] = list(world["factors"])
        self.horizon = int(world["horizon"])
        self.cost_rate = float(world["cost_rate"])
        self.initial_cash = float(world["initial_cash"])
        self.changes: list[list[float]] = world["changes"]
        self.news: list[str] | None = world.get("news")
        for name, width in (("changes", len(self.factors)), ("noise", len(self.stocks)),
                            ("matrix", len(self.factors))):  # a hostile world, named
            if any(len(row) != width for row in world[name]):
                raise ValueError(f"world.{name}: every row needs {width} values")
        self.prices, _ = price_path(world)
        # Per day as Python floats (the same values; one conversion instead of one per turn).
        self._rows: list[list[float]] = self.prices.tolist()
        self._news_lines: dict[int, str] = {}
        self._facts_of: tuple[Book, TradingFacts] | None = None
        self._value_of: tuple[Book, float] | None = None

    def parse(self, text: str) -> Order:
        try:
            return parse_order(text, self.stocks)
        except ValueError as exc:
            raise ActionError(str(exc)) from None

    def initial(self) -> Book:
        return Book(day=0, cash=self.initial_cash, holdings=(0,) * len(self.stocks))

    def value(self, book: Book) -> float:
        """Total value of ``book`` at its day's prices (the last book's kept: a turn asks for
        the same book's value up to three times, in its reward, facts and observation)."""
        kept = self._value_of
        if kept is not None and kept[0] is book:
            return kept[1]
        value = total_value(book.cash, book.holdings, self._rows[book.day])
        self._value_of = (book, value)
        return value

    def fill(self, book: Book, order: Order) -> Fill:
        """What ``order`` does at ``book``'s prices (the trade rule, without the day's move)."""
        return execute(book.cash, list(book.holdings), self._rows[book.day], order,
                       self.cost_rate, self.stocks)

    def step(self, state: Book, action: Order) -> tuple[Book, Event]:
        fill = self.fill(state, action)
        after = Book(day=state.day + 1, cash=fill.cash, holdings=tuple(fill.holdings),
                     refused=state.refused + fill.refused)
        done = "; ".join(fill.notes) if fill.notes else "held (no trades)"
        before = self.value(state)  # first: the value kept from the last observation
        return after, Event(feedback=done[0].upper() + done[1:] + ".",
                            reward=self.value(after) - before)

    def reject(self, state: Book, error: ActionError) -> tuple[Book, Event]:
        after = Book(day=state.day + 1, cash=state.cash, holdings=state.holdings,
                     refused=state.refused)
        before = self.value(state)
        return after, Event(feedback=f"Invalid action: {error}. Nothing executed (hold).",
                            valid=False, reward=self.value(after) - before)

    def done(self, state: Book) -> bool:
        return state.day >= self.horizon

    def facts(self, state: Book) -> TradingFacts:
        if self._facts_of is not None and self._facts_of[0] is state:
            return self._facts_of[1]  # the env asks twice per turn (info, then success)
        value = self.value(state)
        facts = TradingFacts(
            day=state.day, horizon=self.horizon, cash=state.cash,
            holdings=dict(zip(self.stocks, state.holdings, strict=True)),
            prices=list(self._rows[state.day]), total_value=value,
            initial_cash=self.initial_cash, profit_rate=value / self.initial_cash - 1.0,
            refused_buys=state.refused)
        self._facts_of = (state, facts)
        return facts

    @classmethod
    def rubric(cls, params: Mapping[str, Any], world: Mapping[str, Any]) -> list[RubricItem]:
        return [*BASE_RUBRIC, RubricItem(HALF_ORACLE, "The profit is at least 50% of the "
                                                      "perfect-foresight oracle's profit.")]

    def checks(self, facts: TradingFacts) -> list[Check]:
        items = (PROFITABLE, BEATS_HOLD, HALF_ORACLE)
        if facts.day < facts.horizon:
            why = f"episode stopped at day {facts.day} of {facts.horizon}"
            return [Check(item, None, why) for item in items]
        cash, value, rate = facts.initial_cash, facts.total_value, facts.profit_rate
        certificate = getattr(self.task, "certificate", None)
        cert = certificate.facts if certificate is not None else {}
        if "hold_profit" not in cert or "oracle_profit" not in cert:
            why = "the certificate records no baselines"
            return [Check(PROFITABLE, value > cash,
                          f"final value {value:.2f} vs initial cash {cash:.2f}")] + [
                Check(item, None, why) for item in items[1:]]
        hold, oracle = float(cert["hold_profit"]), float(cert["oracle_profit"])
        return [
            Check(PROFITABLE, value > cash,
                  f"final value {value:.2f} vs initial cash {cash:.2f} (profit {rate:+.2%})"),
            Check(BEATS_HOLD, rate > hold,
                  f"profit {rate:+.2%} vs equal-weight buy-and-hold {hold:+.2%}"),
            Check(HALF_ORACLE, oracle > 0 and rate >= 0.5 * oracle,
                  f"profit {rate:+.2%} is {rate / oracle:.1%} of the oracle's {oracle:+.2%}"
                  if oracle > 0 else f"oracle profit {oracle:+.2%} is not positive"),
        ]

    def ladder_value(self, state: Book) -> float:
        """The ladder's headline value of a state: its profit rate (value / initial cash - 1)."""
        return self.value(state) / self.initial_cash - 1.0

    def render(self, state: Book) -> str:
        lines = [f"Day {state.day} of {self.horizon}."]
        lines += [f"{s}: {p:.2f} (holding {h})"
                  for s, p, h in zip(self.stocks, self._rows[state.day], state.holdings,
                                     strict=True)]
        lines.append(f"Cash: {state.cash:.2f}")
        lines.append(f"Total value: {self.value(state):.2f}")
        if state.day < self.horizon:
            news = (self.news[state.day] if self.news is not None
                    else self._news_line(state.day))
            lines.append(f"Next day news: {news}")
        else:
            lines.append("No more news: the horizon is reached.")
        return "\n".join(lines)

    def _news_line(self, day: int) -> str:
        if day not in self._news_lines:
            self._news_lines[day] = news_text(self.factors, self.changes[day])
        return self._news_lines[day]

    @staticmethod
    def random_action(public: dict[str, Any], rng: np.random.Generator) -> str:
        stocks = list(public["stocks"])
        kind = int(rng.integers(4))
        if kind == 0:
            return "{}"
        symbol = stocks[int(rng.integers(len(stocks)))]
        qty = int(rng.integers(1, 200))
        side = "buy" if kind < 3 else "sell"
        return json.dumps({side: {symbol: qty}})
