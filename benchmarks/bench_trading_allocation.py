"""Trading v5: the allocation ablation (one forecast placed several ways, under v4's and v5's rule).

Builds trading v5 tasks of a suite and seeds the way ``build`` does (sample, verify, accept; the
ladder is not climbed; a v5 task has the world of the v4 task of the same seed path), plays the
ridge rung (all-in, as the ladder plays it), the ridge forecaster and a trader told W under every
allocation rule of ``policies_v5`` (all-in, confidence-gated, warm-up spread, proportional,
top-2, top-3), each naming its forecast's best place (``"expect"``) and, marked ``(book)``,
naming none (graded on its book, as a v4 agent plays), and the policies that do not learn
(hold, momentum, random), and prints each policy's pass rate with its Wilson 95 % interval
under v5's rule and under v4's rule of the same episodes (a v5 book carries v4's sums; v4's
switch margin 0.005), with the median knowledge. Then the claims: traders told W >= 90 %
whatever the allocation, the learner's rate moving <= 10 points across allocations, the
non-learners <= 10 %, also with the knowledge bar moved by +-10 %.

    python benchmarks/bench_trading_allocation.py --suite lite --seeds 31 32 33
    python benchmarks/bench_trading_allocation.py --suite challenge --seeds 31 --dump c31.json
    python benchmarks/bench_trading_allocation.py --load c31.json c32.json

``--dump FILE`` writes every episode's facts as JSON; ``--load FILE ...`` pools such dumps.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena_gen.core.calibration import wilson  # noqa: E402
from arena_gen.core.game_env import GameEnv  # noqa: E402
from arena_gen.core.seeds import attempt_seed, task_seed  # noqa: E402
from arena_gen.core.task import Certificate, Draft  # noqa: E402
from arena_gen.envs.trading import V5, sampler_v4, sampler_v5, verify_v5  # noqa: E402
from arena_gen.envs.trading import policies_v3 as pol  # noqa: E402
from arena_gen.envs.trading.game_v4 import knowledge_of_v4, tolerance_of  # noqa: E402
from arena_gen.envs.trading.game_v5 import BookV5, TradingGameV5  # noqa: E402
from arena_gen.envs.trading.policies_v5 import ALLOCATIONS, allocation_policy  # noqa: E402

#: The policies that do not learn (the rule must fail them).
NON_LEARNERS = ("hold", "momentum", "random")
#: v4's switch margin (the same on both suites), for v4's score of the same episodes.
V4_MARGIN = float(sampler_v4.PRESETS["lite"]["switch_margin"])
#: The allocations a trader told W also plays without naming its place (graded on its book).
KNOWING_BOOK = ("allin", "warmup", "top3")
#: The threshold scales the sensitivity lines rescore at.
SCALES = (0.9, 1.1)


def build(suite: str, seed: int, count: int | None) -> list[tuple[Draft, Certificate]]:
    """The accepted (draft, certificate) of each v5 task, as ``build`` draws them (no ladder)."""
    config = sampler_v5.PRESETS[suite]
    out = []
    for i in range(int(config["count"]) if count is None else count):
        root = task_seed(seed, suite, V5.code, i)
        for a in range(int(config["max_attempts"])):
            draft = sampler_v5.sample(config, attempt_seed(root, a))
            cert = verify_v5.verify(draft)
            if sampler_v5.accept(draft, cert) is None:
                out.append((draft, cert))
                break
    return out


def play(draft: Draft, cert: Certificate, policy: Any) -> dict[str, Any]:
    """One episode: the facts both rules read (profit, hold profit, v5 and v4 knowledge,
    exposure)."""
    game = TradingGameV5(draft)
    # v4's score of the same days, at v4's switch margin (v5's success does not read it)
    game.tolerance = tolerance_of({"switch_margin": V4_MARGIN}, game.cost_rate)
    env = GameEnv(game)
    obs, _ = env.reset()
    while not game.done(env.state):
        obs, *_ = env.step(policy.act(obs))
    state = env.state
    assert isinstance(state, BookV5)
    facts = game.facts(state)
    v4_knowledge, _ = knowledge_of_v4(state)
    return {"profit": facts.profit_rate, "hold": float(cert.facts["hold_profit"]),
            "knowledge": facts.knowledge, "exposure": facts.exposure,
            "knowledge_v4": v4_knowledge}


def passes(row: dict[str, Any], regret: float, exposure: float,
           knowledge: str = "knowledge") -> bool:
    """The v4/v5 rubric on one episode's facts (``knowledge``: the score's key)."""
    return (row["profit"] > 0 and row["profit"] > row["hold"]
            and row[knowledge] >= 1 - regret and row["exposure"] >= exposure)


def policies(draft: Draft) -> dict[str, Callable[[], Any]]:
    """Every policy the benchmark plays, by name."""
    pub, rules = draft.public, str(draft.rules_text)
    out: dict[str, Callable[[], Any]] = {
        "ridge rung": lambda: pol.learner_policy(pub, "ridge", None, "allin")}
    for rule in ALLOCATIONS:
        out[f"ridge {rule}"] = lambda r=rule: allocation_policy(pub, r)
    for rule in ALLOCATIONS:
        out[f"ridge {rule} (book)"] = lambda r=rule: allocation_policy(pub, r, name=False)
    for rule in ALLOCATIONS:
        out[f"knows W {rule}"] = lambda r=rule: allocation_policy(pub, r, rules)
    for rule in KNOWING_BOOK:
        out[f"knows W {rule} (book)"] = lambda r=rule: allocation_policy(pub, r, rules,
                                                                         name=False)
    out["hold"] = lambda: pol.HoldPolicy(pub)
    out["momentum"] = lambda: pol.MomentumPolicy(pub, 1)
    out["random"] = lambda: _Random(pub)
    return out


class _Random:
    """The seeded random agent's action rule (attempt seed 0)."""

    def __init__(self, public: dict[str, Any]) -> None:
        self.public = public
        self.rng = np.random.default_rng(0)

    def act(self, observation: str) -> str:
        return TradingGameV5.random_action(self.public, self.rng)


def pct(k: int, n: int) -> str:
    """``k/n`` as a rate with its Wilson interval."""
    lo, hi = wilson(k, n)
    return f"{k / n:.0%} [{lo:.0%}-{hi:.0%}]" if n else "-"


def main() -> None:
    """Play (or load) the episodes, then print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="lite", choices=sorted(sampler_v5.PRESETS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[31])
    parser.add_argument("--count", type=int, default=None, help="tasks per seed (default: preset)")
    parser.add_argument("--policies", nargs="+", default=None,
                        help="play only these policies (names as in the table)")
    parser.add_argument("--dump", default=None, help="also write the episodes' facts here")
    parser.add_argument("--load", nargs="+", default=None, help="pool these dumps instead")
    args = parser.parse_args()
    start = time.perf_counter()
    rows: dict[str, list[dict[str, Any]]] = {}
    seeds: list[int] = []
    if args.load:
        for path in args.load:
            dump = json.loads(Path(path).read_text())
            args.suite = dump["suite"]
            seeds += dump["seeds"]
            for name, got in dump["rows"].items():
                rows.setdefault(name, []).extend(got)
    else:
        seeds = list(args.seeds)
        for seed in seeds:
            for draft, cert in build(args.suite, seed, args.count):
                for name, make in policies(draft).items():
                    if args.policies and name not in args.policies:
                        continue
                    rows.setdefault(name, []).append(play(draft, cert, make()))
        if args.dump:
            Path(args.dump).write_text(json.dumps({"suite": args.suite, "seeds": seeds,
                                                   "rows": rows}))
    report(args.suite, sorted(seeds), rows, time.perf_counter() - start)


def report(suite: str, seeds: list[int], rows: dict[str, list[dict[str, Any]]],
           seconds: float) -> None:
    """The pass-rate table under both rules, the claims, and the threshold sensitivity."""
    config = sampler_v5.PRESETS[suite]
    regret, exposure = float(config["knowledge_regret"]), float(config["min_exposure"])
    n = len(rows["ridge rung"])
    print(f"trading v5 {suite}, seeds {seeds}: {n} tasks, knowledge >= {1 - regret:g}, "
          f"exposure >= {exposure:g} ({seconds:.0f} s)")
    print("\n| policy | v5 pass | v4 pass (same episodes) | median knowledge v5 / v4 |\n"
          "|---|---|---|---|")
    for name, got in rows.items():
        v5 = sum(passes(r, regret, exposure) for r in got)
        v4 = sum(passes(r, regret, exposure, "knowledge_v4") for r in got)
        print(f"| {name} | {pct(v5, n)} | {pct(v4, n)} | "
              f"{np.median([r['knowledge'] for r in got]):.3f} / "
              f"{np.median([r['knowledge_v4'] for r in got]):.3f} |")
    v4_regret = float(sampler_v4.PRESETS[suite]["knowledge_regret"])
    for label, book in (("naming their best place", False), ("graded on the book", True)):
        claims(rows, n, label, book, (regret, v4_regret), exposure)


def claims(rows: dict[str, list[dict[str, Any]]], n: int, label: str, book: bool,
           regrets: tuple[float, float], exposure: float) -> None:
    """The three claims over the allocation rows that name (or do not name) their place
    (``regrets``: v5's and v4's ``knowledge_regret``)."""
    def mine(name: str) -> bool:
        return name.endswith("(book)") == book
    learners = [k for k in rows if k.startswith("ridge ") and mine(k) or k == "ridge rung"]
    knowing = [k for k in rows if k.startswith("knows W") and mine(k)]
    gated = "ridge gated (book)" if book else "ridge gated"
    if "ridge rung" not in rows or gated not in rows or not knowing:
        return
    regret, v4_regret = regrets
    settings = [("v5", regret, "knowledge"), ("v4", v4_regret, "knowledge_v4"),
                *((f"v5, knowledge_regret x {s:g}", regret * s, "knowledge") for s in SCALES)]
    print(f"\nclaims, allocations {label} (learner spread: its best minus its worst "
          f"allocation, in points):")
    for label, at, key in settings:
        def rate(name: str, at: float = at, key: str = key) -> float:
            return sum(passes(r, at, exposure, key) for r in rows[name]) / n
        rates = {k: rate(k) for k in learners}
        best, worst = max(rates, key=rates.__getitem__), min(rates, key=rates.__getitem__)
        free = [rate(k) for k in NON_LEARNERS if k in rows]
        print(f"  {label}: learner {rates[worst]:.0%} ({worst}) to {rates[best]:.0%} ({best}), "
              f"spread {100 * (rates[best] - rates[worst]):.0f}, gated - rung "
              f"{100 * (rates[gated] - rates['ridge rung']):+.0f}; worst knowing "
              f"{min(rate(k) for k in knowing):.0%}; best non-learner "
              f"{max(free, default=0.0):.0%}")


if __name__ == "__main__":
    main()
