"""Trading v3/v4: the knowledge rule's evidence and the inductive learners' ablation table.

Builds trading v3 (or, with ``--version 4``, v4) tasks of the given suites and seeds the way
``build`` does (sample, verify, accept; the ladder is not climbed), plays every policy through
the env, and prints per suite:
the pass rates of traders told W under several allocation rules (the rule must pass them
whatever the split), of policies that do not learn (hold, momentum, random), the ablation of
the inductive learner (estimator x window x allocation), and the best inductive rate when the
rule's threshold (``knowledge_regret``) moves by its own +-10 %; on v4 also when the switch
margin moves by its own +-10 % (the knowledge score recomputed from each episode's days with the
v4 game's own ``day_terms``). Rates with Wilson 95 % intervals.

    python benchmarks/bench_ablation_trading.py --suite lite --seeds 7 11 12 13
    python benchmarks/bench_ablation_trading.py --suite challenge --seeds 7 11 --quick
    python benchmarks/bench_ablation_trading.py --version 4 --suite challenge --seeds 21 --quick

``--dump FILE`` also writes every episode's facts as JSON; ``--load FILE ...`` prints the
tables of such dumps pooled (the same suite run as several processes, e.g. seeds 11-15 and
16-20, gives the tables of one run over all ten seeds).
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
from arena_gen.envs.trading import (  # noqa: E402
    V3,  # noqa: E402
    sampler_v3,
    sampler_v4,
    verify_v3,
    verify_v4,
)
from arena_gen.envs.trading import policies_v3 as pol  # noqa: E402
from arena_gen.envs.trading.game_v1 import Book  # noqa: E402
from arena_gen.envs.trading.game_v3 import TradingGameV3  # noqa: E402
from arena_gen.envs.trading.game_v4 import (  # noqa: E402
    BookV4,
    TradingGameV4,
    day_terms,
    tolerance_of,
)

KNOWING = ("allin", "top2", "top3", "top4", "margin0.002", "margin0.005")
#: v4 also plays a knowing trader past the margin it forgives, and learners at that margin.
KNOWING_V4 = (*KNOWING, "margin0.01")
ESTIMATORS = ("ridge", "ridge1")
WINDOWS: tuple[int | None, ...] = (None, 30, 60)
RULES = ("allin", "top2", "top3", "margin0.002")
RULES_V4 = (*RULES, "margin0.005")
#: Per version: the sampler and verifier modules and the game.
VERSIONS: dict[int, tuple[Any, Any, type[TradingGameV3]]] = {
    3: (sampler_v3, verify_v3, TradingGameV3), 4: (sampler_v4, verify_v4, TradingGameV4)}
#: The switch margin's scales the v4 sensitivity table recomputes the score at.
MARGIN_SCALES = (0.9, 1.1)


def build(suite: str, seed: int, count: int | None,
          version: int = 3) -> list[tuple[Draft, Certificate]]:
    """The accepted (draft, certificate) of each task, as ``build`` draws them (no ladder)."""
    sampler, verifier, _ = VERSIONS[version]
    config = sampler.PRESETS[suite]
    out = []
    for i in range(int(config["count"]) if count is None else count):
        root = task_seed(seed, suite, V3.code, i)
        for a in range(int(config["max_attempts"])):
            draft = sampler.sample(config, attempt_seed(root, a))
            cert = verifier.verify(draft)
            if sampler.accept(draft, cert) is None:
                out.append((draft, cert))
                break
    return out


class _Recorded(TradingGameV4):
    """The v4 game, keeping each day's book values, kept values and true returns (so the
    score can be recomputed at other switch margins with the game's own ``day_terms``)."""

    def __init__(self, task: Any) -> None:
        super().__init__(task)
        self.days: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        #: Per day: the book's true expected return after the trade, less the fees it paid
        #: (both as shares of the book): what a switching margin costs or saves.
        self.net_gain = 0.0

    def _scored(self, before: Book, after: Book) -> BookV4:
        values, kept, returns = self.day_book(before, after)
        self.days.append((values, kept, returns))
        worth = float(values.sum())
        if worth > 0:
            fees = self.value(before) - worth  # trades fill at today's prices: the gap is fees
            self.net_gain += float(values @ returns) / worth - fees / worth
        return super()._scored(before, after)


def rescored(game: _Recorded, margin: float) -> float:
    """The v4 knowledge score of a played episode at another switch margin."""
    tolerance = tolerance_of({"switch_margin": margin}, game.cost_rate)
    edge, judged = np.array([day_terms(v, k, r, tolerance) for v, k, r in game.days])[:, :2].T
    return float(edge.sum() / judged.sum()) if judged.sum() > 0 else 0.0


def play(draft: Draft, cert: Certificate, policy: Any, version: int = 3) -> dict[str, Any]:
    """One episode: the final facts the rubric reads (profit, hold profit, knowledge, exposure;
    on v4 also the knowledge at the switch margin x 0.9 and x 1.1)."""
    game = _Recorded(draft) if version == 4 else TradingGameV3(draft)
    env = GameEnv(game)
    obs, _ = env.reset()
    while not game.done(env.state):
        obs, *_ = env.step(policy.act(obs))
    facts = game.facts(env.state)
    row = {"profit": facts.profit_rate, "hold": float(cert.facts["hold_profit"]),
           "knowledge": facts.knowledge, "exposure": facts.exposure}
    if isinstance(game, _Recorded):
        margin = float(draft.params["switch_margin"])
        for scale in MARGIN_SCALES:
            row[f"knowledge_m{scale}"] = rescored(game, margin * scale)
        row["net_gain"] = game.net_gain
    return row


def passes(row: dict[str, Any], regret: float, exposure: float,
           knowledge: str = "knowledge") -> bool:
    """The v3/v4 rubric on one episode's facts, at a given threshold (``knowledge``: the key
    of the score to read, e.g. the v4 score at another switch margin)."""
    return (row["profit"] > 0 and row["profit"] > row["hold"]
            and row[knowledge] >= 1 - regret and row["exposure"] >= exposure)


def policies(draft: Draft, quick: bool, version: int = 3) -> dict[str, Callable[[], Any]]:
    """Every policy the benchmark plays, by name."""
    pub, rules = draft.public, str(draft.rules_text)
    out: dict[str, Callable[[], Any]] = {}
    for rule in KNOWING_V4 if version == 4 else KNOWING:
        out[f"knows W, {rule}"] = lambda r=rule: pol.knowing_policy(pub, rules, r)
    out["hold"] = lambda: pol.HoldPolicy(pub)
    out["momentum"] = lambda: pol.MomentumPolicy(pub, 1)
    out["momentum5"] = lambda: pol.MomentumPolicy(pub, 5)
    out["random"] = lambda: _Random(pub)
    for est in ESTIMATORS[:1] if quick else ESTIMATORS:
        for window in (None, 60) if quick else WINDOWS:  # quick: the rungs' windows
            for rule in RULES_V4 if version == 4 else RULES:
                out[f"{est} w={window or 'all'} {rule}"] = (
                    lambda e=est, w=window, r=rule: pol.learner_policy(pub, e, w, r))
    return out


class _Random:
    """The seeded random agent's action rule (attempt seed 0)."""

    def __init__(self, public: dict[str, Any]) -> None:
        self.public = public
        self.rng = np.random.default_rng(0)

    def act(self, observation: str) -> str:
        return TradingGameV3.random_action(self.public, self.rng)


def pct(k: int, n: int) -> str:
    """``k/n`` as a rate with its Wilson interval."""
    lo, hi = wilson(k, n)
    return f"{k / n:4.0%} [{lo:.0%}-{hi:.0%}]" if n else "-"


def main() -> None:
    """Print the tables for one suite over the given seeds (or pooled dumps)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="lite", choices=sorted(sampler_v3.PRESETS))
    parser.add_argument("--version", type=int, default=3, choices=sorted(VERSIONS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[7])
    parser.add_argument("--count", type=int, default=None, help="tasks per seed (default: preset)")
    parser.add_argument("--quick", action="store_true", help="fewer ablation variants")
    parser.add_argument("--only", default=None,
                        help="play only the policies whose name starts with this")
    parser.add_argument("--dump", default=None, help="also write the episodes' facts here")
    parser.add_argument("--load", nargs="+", default=None, help="pool these dumps instead")
    args = parser.parse_args()
    start = time.perf_counter()
    per_seed: dict[int, dict[str, list[dict[str, Any]]]] = {}
    if args.load:
        for path in args.load:
            dump = json.loads(Path(path).read_text())
            args.suite, args.version = dump["suite"], int(dump.get("version", 3))
            per_seed.update({int(s): rows for s, rows in dump["seeds"].items()})
    else:
        for seed in args.seeds:
            per_seed[seed] = {}
            for draft, cert in build(args.suite, seed, args.count, args.version):
                for name, make in policies(draft, args.quick, args.version).items():
                    if args.only and not name.startswith(args.only):
                        continue
                    per_seed[seed].setdefault(name, []).append(
                        play(draft, cert, make(), args.version))
        if args.dump:
            Path(args.dump).write_text(json.dumps({"suite": args.suite, "version": args.version,
                                                   "seeds": per_seed}))
    report(args.suite, per_seed, time.perf_counter() - start, args.version)


def report(suite: str, per_seed: dict[int, dict[str, list[dict[str, Any]]]],
           seconds: float, version: int = 3) -> None:
    """The pass-rate table (per seed and pooled) and the threshold sensitivity."""
    config = VERSIONS[version][0].PRESETS[suite]
    regret, exposure = float(config["knowledge_regret"]), float(config["min_exposure"])
    seeds = sorted(per_seed)
    # the policies every seed played (a --quick dump pooled with a full one: the quick set)
    names = [k for k in per_seed[seeds[0]] if all(k in per_seed[s] for s in seeds)]
    rows: dict[str, list[dict[str, Any]]] = {k: [] for k in names}
    for seed in seeds:
        for name in names:
            rows[name].extend(per_seed[seed][name])
    n = len(next(iter(rows.values())))
    margin = f", switch margin {config['switch_margin']:g}" if version == 4 else ""
    print(f"trading v{version} {suite}, seeds {seeds}: {n} tasks, rule knowledge >= "
          f"{1 - regret:g}, exposure >= {exposure:g}{margin} ({seconds:.0f} s)")
    print(f"\n| policy | {' | '.join(f'seed {s}' for s in seeds)} | pooled | "
          f"median knowledge |\n|---|{'---|' * len(seeds)}---|---|")
    for name, got in rows.items():
        cells = [pct(sum(passes(r, regret, exposure) for r in per_seed[s][name]),
                     len(per_seed[s][name])) for s in seeds]
        pooled = pct(sum(passes(r, regret, exposure) for r in got), len(got))
        median = float(np.median([r["knowledge"] for r in got]))
        print(f"| {name} | {' | '.join(cells)} | {pooled} | {median:.3f} |")
    if all("net_gain" in r for r in rows.get("knows W, margin0.002", [{}])):
        reference = np.array([r["net_gain"] for r in rows["knows W, margin0.002"]])
        print("\nexpected net gain (true expected return less fees, summed over days) over the "
              "knowing margin0.002 trader's, median [min] over tasks:")
        for name in (k for k in rows if k.startswith("knows W")):
            ratio = np.array([r["net_gain"] for r in rows[name]]) / reference
            print(f"  {name}: {np.median(ratio):.2f} [{ratio.min():.2f}]")
    learners = [k for k in rows if k.startswith(ESTIMATORS)]
    if not learners or "hold" not in rows:
        return
    print("\nthreshold sensitivity (knowledge_regret x 0.9 / x 1 / x 1.1"
          + (", then the switch margin x 0.9 / x 1.1" if version == 4 else "") + "):")
    settings = [(f"regret {regret * s:.3f}", regret * s, "knowledge") for s in (0.9, 1.0, 1.1)]
    if version == 4:
        settings += [(f"switch margin {float(config['switch_margin']) * s:g}", regret,
                      f"knowledge_m{s}") for s in MARGIN_SCALES]
    for label, at, key in settings:
        def rate(name: str, at: float = at, key: str = key) -> float:
            return sum(passes(r, at, exposure, key) for r in rows[name]) / n
        rates = {k: rate(k) for k in learners}
        best = max(rates, key=lambda k: rates[k])
        knowing = min(rate(f"knows W, {a}") for a in KNOWING)
        free = max(rate(k) for k in ("hold", "momentum", "momentum5", "random"))
        print(f"  {label}: best inductive {best} {rates[best]:.0%}, "
              f"worst knowing {knowing:.0%}, best non-learning {free:.0%}")


if __name__ == "__main__":
    main()
