"""Trading figures: seconds per generated+verified task (Lite and Challenge), verify-only time,
rejection counts, and the oracle / ridge / hold headroom of the built tasks.

Reproduce: ``python benchmarks/bench_trading.py [--quick]`` from the repository root.
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena_gen.envs.trading.sampler_v1 import PRESETS
from arena_gen.envs.trading.verify_v1 import verify
from arena_gen.suite.build import generate_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="5 lite and 3 challenge tasks")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"command: python benchmarks/bench_trading.py --seed {args.seed}"
          + (" --quick" if args.quick else ""))
    print(f"{'suite':<10}{'tasks':>6}{'s/task':>9}{'verify s':>10}{'rejected':>9}"
          f"{'oracle':>12}{'ridge/oracle':>14}{'hold':>9}")
    for suite in ("lite", "challenge"):
        count = (5 if suite == "lite" else 3) if args.quick else int(PRESETS[suite]["count"])
        start = time.perf_counter()
        gens = [generate_task("trading", suite, args.seed, i) for i in range(count)]
        per_task = (time.perf_counter() - start) / count
        start = time.perf_counter()
        for gen in gens:
            verify(gen.task)
        verify_s = (time.perf_counter() - start) / count
        facts = [g.task.certificate.facts for g in gens]
        rejected = sum(g.attempts - 1 for g in gens)
        oracle = statistics.median(f["oracle_profit"] for f in facts)
        ratio = statistics.median(f["ridge_profit"] / f["oracle_profit"] for f in facts)
        hold = statistics.mean(f["hold_profit"] for f in facts)
        print(f"{suite:<10}{count:>6}{per_task:>9.3f}{verify_s:>10.3f}{rejected:>9}"
              f"{oracle:>12.4g}{ratio:>14.4f}{hold:>+9.3f}")
    print("s/task: sample + verify + accept + witness replay per accepted task (rejections "
          "included); verify s: re-verifying one task; oracle: median oracle profit rate; "
          "ridge/oracle: median ratio of profit rates; hold: mean buy-and-hold profit rate.")


if __name__ == "__main__":
    main()
