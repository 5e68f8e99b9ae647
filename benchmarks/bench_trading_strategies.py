"""The paper's six scripted trading strategies on the 30 released OdysseyArena Lite trading configs.

Imports the released configs with ``arena-gen import odyssey-arena`` (or takes a suite folder
or released suite name that already holds them, e.g. ``odyssey-lite``), plays every strategy
with ``arena-gen run --agent trading-<strategy> --env trading``, and prints each strategy's
mean and median profit rate over the tasks, next to the certificates' oracle. The paper's
Table 8 reports +211.13 % for its optimal strategy on these configs.

Reproduce: ``python benchmarks/bench_trading_strategies.py [--suite SUITE] [--jobs N]`` from the
repository root (default: import the configs from ``../shared/reference-data``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena_gen.core.suite_io import read_suite
from arena_gen.envs.trading.agents.strategies import STRATEGIES
from arena_gen.runner.rundir import RunDir

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO.parent / "shared" / "reference-data" / "odyssey-arena" / "trading"
PAPER_OPTIMAL = 2.1113  # OdysseyArena (arXiv 2602.05843), Table 8: optimal strategy


def cli(*args: str) -> None:
    """Run one ``arena-gen`` command in this interpreter's environment, failing loudly."""
    subprocess.run([sys.executable, "-m", "arena_gen.cli", *args, "--display", "none"],
                   check=True)


def import_configs(configs: Path, out: Path) -> Path:
    """Import the released trading configs 1..30 as a suite folder."""
    files = [str(configs / f"test_trade_config_{i}.json") for i in range(1, 31)]
    cli("import", "odyssey-arena", *files, "--out", str(out))
    return out


def profits(rundir: Path) -> list[float]:
    """Final profit rate of every finished episode of a run."""
    return [float(r["final_info"]["profit_rate"]) for r in RunDir(rundir).records()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default=None,
                        help="suite folder or released name holding the 30 configs "
                             "(default: import them from --configs)")
    parser.add_argument("--configs", type=Path, default=CONFIGS,
                        help="folder of the released test_trade_config_*.json files")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="only the first 6 tasks")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help="comma-separated subset of " + ",".join(STRATEGIES))
    args = parser.parse_args()
    print("command: python benchmarks/bench_trading_strategies.py"
          + (f" --suite {args.suite}" if args.suite else "") + f" --jobs {args.jobs}"
          + (" --quick" if args.quick else ""))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        suite = args.suite or str(import_configs(args.configs, work / "suite"))
        tasks = read_suite(suite).tasks.get("trading", [])[:6 if args.quick else None]
        select = ["--tasks", ",".join(t.id for t in tasks)] if args.quick else []
        facts = [t.certificate.facts for t in tasks]
        print(f"{'strategy':<22}{'tasks':>6}{'mean':>11}{'median':>11}{'min':>11}{'max':>11}"
              f"{'seconds':>9}")
        rows: list[tuple[str, list[float], float | None]] = [
            ("certificate: oracle", [float(f["oracle_profit"]) for f in facts], None),
            ("certificate: ridge", [float(f["ridge_profit"]) for f in facts], None),
            ("certificate: hold", [float(f["hold_profit"]) for f in facts], None)]
        for name in args.strategies.split(","):
            start = time.perf_counter()
            out = work / f"run-{name}"
            cli("run", "--suite", suite, "--agent", f"trading-{name}", "--env", "trading",
                "--jobs", str(args.jobs), "--out", str(out), *select)
            rows.append((name, profits(out), time.perf_counter() - start))
        for name, values, seconds in rows:
            shown = "-" if seconds is None else f"{seconds:.1f}"
            print(f"{name:<22}{len(values):>6}{statistics.mean(values):>+11.2%}"
                  f"{statistics.median(values):>+11.2%}{min(values):>+11.2%}"
                  f"{max(values):>+11.2%}{shown:>9}")
    print(f"profit rate = final value / initial cash - 1, one attempt per task; certificate "
          f"rows: the facts recorded at import (ridge = the heuristic agent, trading from day "
          f"1; hold = equal-weight buy-and-hold); the paper's Table 8 reports "
          f"{PAPER_OPTIMAL:+.2%} for its optimal strategy.")


if __name__ == "__main__":
    main()
