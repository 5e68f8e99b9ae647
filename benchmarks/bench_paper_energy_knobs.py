"""Attack on the paper-scale energy Challenge (v8): does a re-tuned inductive rung pass more?

    python benchmarks/bench_paper_energy_knobs.py [--seeds 51 52] [--version 8]

The ladder's change-point learner per site with one knob moved at a time (pessimism z 1.5, 2.0,
3.5 against its 2.5; CUSUM threshold 4 and 9 against its 6) plays each task of seeds never used
for tuning or the out-of-sample ladder (default 51 and 52, 10 tasks each, generated and
certified as a build does). It prints each task's outcomes and the successes per variant; a
variant far above the rung would mean the ladder understates what the learner's family can do.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from arena_gen.envs.energy.agents.changepoint import EnergyChangePointPlanner
from arena_gen.envs.energy.agents.sites_v7 import SiteChangePoint
from arena_gen.suite.build import generate_task
from arena_gen.suite.ladder import _attempt


def variant(**knobs: float) -> type[SiteChangePoint]:
    """The site learner whose per-site model has ``knobs`` in place of the rung's."""
    model = type("Tuned", (EnergyChangePointPlanner,), dict(knobs))
    return type("TunedSites", (SiteChangePoint,), {"model": model})


VARIANTS: dict[str, Any] = {"rung": SiteChangePoint, "z1.5": variant(z=1.5),
                            "z2.0": variant(z=2.0), "z3.5": variant(z=3.5),
                            "thr4": variant(threshold=4.0), "thr9": variant(threshold=9.0)}


def main() -> None:
    """Generate each seed's tasks and play every variant once on each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[51, 52])
    parser.add_argument("--version", type=int, default=8)
    args = parser.parse_args()
    wins = dict.fromkeys(VARIANTS, 0)
    for seed in args.seeds:
        for index in range(10):
            t0 = time.process_time()
            task = generate_task("energy", "challenge", seed, index, version=args.version).task
            row = {name: bool(_attempt(task, cls(), "inductive", 0)["success"])
                   for name, cls in VARIANTS.items()}
            for name, won in row.items():
                wins[name] += won
            print(task.id, json.dumps(row), f"{time.process_time() - t0:.0f} s CPU", flush=True)
    tasks = 10 * len(args.seeds)
    print("successes of", tasks, "tasks:", json.dumps(wins))


if __name__ == "__main__":
    main()
