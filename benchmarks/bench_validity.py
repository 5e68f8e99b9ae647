"""Does each suite measure induction? The baseline ladder per env x suite, measured by running.

For every env of every suite, plays each rung of the baseline ladder with ``arena-gen run`` (the
seeded random agent with 4 attempts, the env's inductive heuristic and any other scripted
inductive baselines, and the with-rules planner in with-rules mode), prints each rung's success
rate with a 95 % Wilson interval over tasks, checks that what was measured equals what the
certificates claim (their ``ladder``), and draws the table as a plot.

Reproduce: ``python benchmarks/bench_validity.py [SUITE ...] [--jobs N] [--plot FILE]`` from the
repository root (default: ``suites/lite suites/challenge``, plot ``benchmarks/validity.png``).

**Out of sample** (``--seeds 11,12,...``): builds Lite and Challenge afresh for each seed (other
than the release seed the presets were tuned on), with ``--version env=N`` for a preview
version, and pools each rung's certified ladder over every seed's tasks (the certificates'
ladders are what running the rungs gives: the default mode checks that). It prints per env,
suite and rung the pooled rate with its 95 % Wilson interval over attempts, and checks the
targets of issue #25: on Lite the best inductive rung inside its band and >= 15 points above
the best model-free rung; on Challenge every rung below its Lite rate and the best inductive
rung's interval below (not overlapping) Lite's. Reproduce: ``python benchmarks/bench_validity.py
--seeds 11,12,13,14,15,16,17,18,19,20 [--env lights] [--version lights=3] [--jobs 2]``.

**Price of discovery** (``--prices``): reads each task's certified ladder (its rungs' recorded
steps, re-played by ``verify``) and prints per suite, env and rung the mean over the rung's
successful episodes of steps - the task's reference (``scoring/induction_efficiency.py``), and
which reference that is. Plays nothing. Reproduce: ``python benchmarks/bench_validity.py
--prices [SUITE ...]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena_gen.core import registry
from arena_gen.core.calibration import (
    PLANNER,
    RANDOM,
    inductive_rungs,
    model_free_rungs,
    rung_order,
    rung_rates,
    wilson,
)
from arena_gen.core.suite_io import read_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.induction_efficiency import (
    price_text,
    reference_of,
    reference_text,
    rung_prices,
)

REPO = Path(__file__).resolve().parent.parent


def rungs_of(tasks: list[Any]) -> list[tuple[str, str, int]]:
    """(rung, mode, attempts) from the certificates' ladder, else the env's registered parts."""
    ladder = tasks[0].certificate.facts.get("ladder")
    if ladder:
        return sorted(((rung, row["mode"], row["attempts"]) for rung, row in ladder.items()),
                      key=lambda r: rung_order(r[0]))
    spec = registry.for_task(tasks[0])
    out = [(RANDOM, "inductive", 4)]
    if spec.heuristic is not None:
        out.append(("heuristic", "inductive", 1))
    out += [(name, "inductive", 1) for name in sorted(spec.baselines)]
    out += [(name, "inductive", 1) for name in sorted(spec.model_free)]
    if spec.planner is not None:
        out.append((PLANNER, "with-rules", 1))
    return out


def measure(suite_path: Path, env: str, rung: str, mode: str, attempts: int,
            jobs: int) -> dict[str, Any]:
    """Play one rung over one env of a suite; per-task success shares and the episode count."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(suite=str(suite_path), agent=rung, attempts=attempts, envs=[env],
                        mode=mode, jobs=jobs, out=str(Path(tmp) / "run"))
        rundir = run_suite(cfg)
        records = rundir.records()
    per_task: dict[str, list[bool]] = {}
    for record in records:
        per_task.setdefault(record["task_id"], []).append(bool(record["success"]))
    return {"per_task": {t: sum(v) for t, v in per_task.items()}, "attempts": attempts,
            "tasks": len(per_task)}


def knowledge_curves(ladders: list[dict[str, Any]]) -> dict[str, list[tuple[int, int]]]:
    """Per rung, (probes right, probes asked) at each milestone, pooled over ladders of format
    3 (earlier formats record no probes: an empty result)."""
    curves: dict[str, list[list[int]]] = {}
    for ladder in ladders:
        for rung, row in ladder.items():
            for result in row.get("results", []):
                for i, point in enumerate(result.get("probes") or []):
                    curve = curves.setdefault(rung, [])
                    while len(curve) <= i:
                        curve.append([0, 0])
                    curve[i][0] += int(point["correct"])
                    curve[i][1] += int(point["asked"])
    return {rung: [(right, asked) for right, asked in curve] for rung, curve in curves.items()}


#: (suite, env) -> the certificates' ladders of every task of a pooled out-of-sample run.
LADDERS: dict[tuple[str, str], list[dict[str, Any]]] = {}


def pooled(seeds: list[int], envs: list[str] | None, versions: dict[str, int],
           jobs: int) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """(suite, env) -> the rung rates pooled over fresh builds of every seed (the ladders
    themselves are kept in :data:`LADDERS` for the knowledge curves)."""
    from arena_gen.suite.build import build_suite

    ladders = LADDERS
    for seed in seeds:
        for suite in ("lite", "challenge"):
            t0 = time.perf_counter()
            built = build_suite(suite, seed, envs, jobs=jobs, versions=versions or None)
            for env, tasks in built.tasks.items():
                ladders.setdefault((suite, env), []).extend(
                    t.certificate.facts["ladder"] for t in tasks
                    if "ladder" in t.certificate.facts)
            print(f"seed {seed} {suite}: {sum(len(t) for t in built.tasks.values())} tasks "
                  f"in {time.perf_counter() - t0:.0f} s", flush=True)
    return {key: rung_rates(rows) for key, rows in ladders.items()}


def out_of_sample(args: argparse.Namespace) -> int:
    """The ``--seeds`` mode: pooled ladders over fresh builds, and the targets they meet."""
    seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
    versions = dict((k, int(v)) for k, v in (x.split("=") for x in args.version))
    envs = args.env.split(",") if args.env else None
    start = time.perf_counter()
    rates = pooled(seeds, envs, versions, args.jobs)
    print(f"\nseeds {','.join(map(str, seeds))}, pooled, "
          f"{time.perf_counter() - start:.0f} s\n")
    print("| env | suite | rung | kind | tasks | attempts | success | 95 % CI |")
    print("|---|---|---|---|---|---|---|---|")
    for (suite, env), rows in sorted(rates.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        for rung, row in rows.items():
            lo, hi = row["ci95"]
            print(f"| {env} | {suite} | {rung} | {row.get('kind', '-')} | {row['tasks']} | "
                  f"{row['attempts']} | {row['rate']:.1%} | {lo:.0%}-{hi:.0%} |")
    curves = {key: knowledge_curves(rows) for key, rows in LADDERS.items()}
    if any(curves.values()):
        print("\nKnowledge curves (probe accuracy at 25/50/75/100 % of the budget, pooled):\n")
        print("| env | suite | rung | 25 % | 50 % | 75 % | 100 % | probes |")
        print("|---|---|---|---|---|---|---|---|")
        for (suite, env), per_rung in sorted(curves.items(), key=lambda kv: (kv[0][1],
                                                                                kv[0][0])):
            for rung in sorted(per_rung, key=rung_order):
                points = per_rung[rung]
                cells = [f"{right / asked:.0%}" if asked else "-" for right, asked in points]
                print(f"| {env} | {suite} | {rung} | {' | '.join(cells)} | "
                      f"{sum(a for _, a in points)} |")
    failed = []
    for env in sorted({env for _, env in rates}):
        lite, chal = rates.get(("lite", env), {}), rates.get(("challenge", env), {})
        ind = inductive_rungs(lite)
        if not ind:
            continue
        best = max(ind, key=lambda r: lite[r]["rate"])
        if not 0.10 <= lite[best]["rate"] <= 0.60:
            failed.append(f"{env}: Lite best inductive {best} {lite[best]['rate']:.0%} "
                          f"outside 10-60 %")
        free = model_free_rungs(lite)
        if free:
            top = max(free, key=lambda r: lite[r]["rate"])
            if lite[best]["rate"] - lite[top]["rate"] < 0.15:
                failed.append(f"{env}: Lite best inductive {best} {lite[best]['rate']:.0%} "
                              f"is < 15 points above model-free {top} "
                              f"{lite[top]['rate']:.0%}")
        else:
            failed.append(f"{env}: no model-free rung in the ladder")
        for rung, row in chal.items():
            if rung not in (RANDOM, PLANNER) and rung in lite and row["rate"] >= lite[rung][
                    "rate"] and lite[rung]["rate"] > 0:
                failed.append(f"{env}: Challenge {rung} {row['rate']:.0%} not below Lite "
                              f"{lite[rung]['rate']:.0%}")
        cind = inductive_rungs(chal)
        if cind:
            cbest = max(cind, key=lambda r: chal[r]["rate"])
            if chal[cbest]["ci95"][1] >= lite[best]["ci95"][0]:
                failed.append(f"{env}: Challenge best inductive {cbest} interval "
                              f"{chal[cbest]['ci95']} overlaps Lite's {lite[best]['ci95']}")
    print()
    for line in failed:
        print("TARGET MISSED", line)
    print(f"{len(failed)} targets missed")
    return 1 if failed else 0


def prices(suites: list[str]) -> int:
    """The price of discovery of every rung, from the certificates' ladders (nothing played)."""
    print("| suite | env | rung | mode | successes scored | price of discovery (steps) | "
          "reference |")
    print("|---|---|---|---|---|---|---|")
    for name in suites:
        suite = read_suite(name)
        for env, tasks in suite.tasks.items():
            refs = {t.id: reference_of(t) for t in tasks}
            ladders = [(t.certificate.facts["ladder"], refs[t.id]) for t in tasks
                       if isinstance(t.certificate.facts.get("ladder"), dict)]
            kind = reference_text(r.kind for r in refs.values() if r is not None)
            if kind is None:
                print(f"| {suite.manifest['suite']} | {env} | every rung | | 0 | n/a | none "
                      f"(fixed horizon: no step reference) |")
                continue
            for rung, price in sorted(rung_prices(ladders).items(),
                                      key=lambda kv: rung_order(kv[0])):
                mode = next(lad[rung]["mode"] for lad, _ in ladders if rung in lad)
                print(f"| {suite.manifest['suite']} | {env} | {rung} | {mode} | "
                      f"{price.episodes} | {price_text(price)} | {kind} |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suites", nargs="*", default=["suites/lite", "suites/challenge"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--plot", default=str(REPO / "benchmarks" / "validity.png"))
    parser.add_argument("--seeds", default="", help="out of sample: build these seeds afresh")
    parser.add_argument("--env", default="", help="--seeds: only these envs (comma-separated)")
    parser.add_argument("--version", action="append", default=[], metavar="ENV=N",
                        help="--seeds: build ENV at version N (e.g. a preview)")
    parser.add_argument("--prices", action="store_true",
                        help="print each rung's price of discovery from the certificates")
    args = parser.parse_args()
    if args.prices:
        return prices(args.suites)
    if args.seeds:
        return out_of_sample(args)
    rows: list[dict[str, Any]] = []
    mismatches = []
    start = time.perf_counter()
    for name in args.suites:
        suite = read_suite(name)
        label = suite.manifest["suite"]
        for env, tasks in suite.tasks.items():
            for rung, mode, attempts in rungs_of(tasks):
                t0 = time.perf_counter()
                got = measure(suite.path, env, rung, mode, attempts, args.jobs)
                share = [got["per_task"].get(t.id, 0) / attempts for t in tasks]
                rate = sum(share) / len(share)
                lo, hi = wilson(round(rate * len(tasks)), len(tasks))
                claimed = [((t.certificate.facts.get("ladder") or {}).get(rung) or {})
                           .get("successes") for t in tasks]
                if any(c is not None for c in claimed):
                    for t, c in zip(tasks, claimed, strict=True):
                        if c != got["per_task"].get(t.id, 0):
                            mismatches.append(f"{t.id} {rung}: certificate {c}, "
                                              f"measured {got['per_task'].get(t.id, 0)}")
                rows.append({"suite": label, "env": env, "rung": rung, "mode": mode,
                             "tasks": len(tasks), "attempts": attempts, "rate": rate,
                             "lo": lo, "hi": hi, "seconds": time.perf_counter() - t0})
                print(f"{label:<10} {env:<8} {rung:<22} {rate:6.1%}  [{lo:.0%}-{hi:.0%}]  "
                      f"({len(tasks)} tasks x {attempts}, {rows[-1]['seconds']:.1f} s)",
                      flush=True)
    print()
    print("| suite | env | rung | mode | tasks x attempts | success | 95 % CI (tasks) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['suite']} | {r['env']} | {r['rung']} | {r['mode']} | "
              f"{r['tasks']} x {r['attempts']} | {r['rate']:.0%} | "
              f"{r['lo']:.0%}-{r['hi']:.0%} |")
    print(f"\nmeasured in {time.perf_counter() - start:.0f} s; "
          f"{len(mismatches)} ladder mismatches against the certificates")
    for line in mismatches[:20]:
        print("  MISMATCH", line)
    plot(rows, args.plot)
    return 1 if mismatches else 0


def plot(rows: list[dict[str, Any]], path: str) -> None:
    """Grouped bars: success per rung, one panel per env, one bar group per suite."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: pip install '.[report]' for the plot)")
        return
    envs = list(dict.fromkeys(r["env"] for r in rows))
    suites = list(dict.fromkeys(r["suite"] for r in rows))
    fig, axes = plt.subplots(1, len(envs), figsize=(3.6 * len(envs), 3.4), sharey=True,
                             squeeze=False)
    for ax, env in zip(axes[0], envs, strict=True):
        mine = [r for r in rows if r["env"] == env]
        rungs = list(dict.fromkeys(r["rung"] for r in mine))
        width = 0.8 / max(1, len(suites))
        for n, suite in enumerate(suites):
            for i, rung in enumerate(rungs):
                hit = [r for r in mine if r["suite"] == suite and r["rung"] == rung]
                if not hit:
                    continue
                r = hit[0]
                ax.bar(i + n * width, 100 * r["rate"], width,
                       yerr=[[100 * (r["rate"] - r["lo"])], [100 * (r["hi"] - r["rate"])]],
                       capsize=2, color=f"C{n}", label=suite if i == 0 else None)
        ax.set_xticks([i + width * (len(suites) - 1) / 2 for i in range(len(rungs))])
        ax.set_xticklabels(rungs, rotation=40, ha="right", fontsize=7)
        ax.set_title(env)
        ax.set_ylim(0, 105)
    axes[0][0].set_ylabel("success rate, % of tasks (95 % CI)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")


if __name__ == "__main__":
    sys.exit(main())
