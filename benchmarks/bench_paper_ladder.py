"""Paper-scale Challenge, all four envs, out of sample: does it still measure induction?

    python benchmarks/bench_paper_ladder.py [--seeds 41..50] [--jobs 2] [--json FILE]
    python benchmarks/bench_paper_ladder.py --report FILE

For each seed, builds ``build --suite challenge --seed S`` at the versions the suite pins
(``--versions`` to choose others, e.g. ``lights=5``; no build cache: every task is sampled,
verified, witness-replayed, resistance-checked and laddered; no proofs) and reads each task's
certified ladder from its certificate. Pooled over the seeds it prints, per env x rung, the
success over attempts (random: its 4 attempts per task) with a 95 % Wilson interval, the tasks
solved, the successes per seed, the price of discovery (mean steps beyond the task's reference
over the rung's successes; trading and energy have fixed horizons and no reference), the
candidates rejected by kind, build wall and CPU seconds per seed, the knowledge curves (probe
accuracy at 25 / 50 / 75 / 100 % of the budget) and whether issue 42's targets hold: random 0,
every model-free rung 0 (by construction: a candidate a model-free rung solves is rejected;
those rejections are counted), the planner 100 %, the best inductive rung strictly between 0
and 100 % and below Lite's pooled out-of-sample rate (read from this folder's README.md,
section "Out-of-sample calibration"). Seeds 7-9 and 11-20 were used in tuning; 41-50 never
were.

``--json FILE`` keeps every seed's figures (rewritten after each seed; seeds already in the file
are not built again, so an interrupted run resumes); ``--report FILE`` prints the figures of
such a dump without building. The CPU seconds (this process and its finished workers) do not
depend on the shared load; the wall seconds do (the load average is printed with them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench_validity import knowledge_curves
from paper_scale import cpu_seconds

from arena_gen.core.calibration import (
    PLANNER,
    RANDOM,
    inductive_rungs,
    model_free_rungs,
    rung_kind,
    rung_order,
    rung_rates,
)
from arena_gen.scoring.induction_efficiency import (
    Reference,
    price_text,
    reference_of,
    rung_prices,
)
from arena_gen.suite.build import Generated, build_suite
from arena_gen.suite.catalog import PINNED

README = Path(__file__).resolve().parent / "README.md"
LITE_SECTION = "## Out-of-sample calibration"
#: The released Challenge's versions (the suite's pins).
PAPER_VERSIONS = ",".join(f"{env}={v}" for env, v in sorted(PINNED["challenge"].items()))


def seed_list(items: list[str]) -> list[int]:
    """Seeds from ``41..50`` ranges and plain numbers."""
    out: list[int] = []
    for item in items:
        for part in item.split(","):
            if ".." in part:
                lo, hi = part.split("..")
                out.extend(range(int(lo), int(hi) + 1))
            elif part.strip():
                out.append(int(part))
    return out


def build_seed(seed: int, versions: dict[str, int], jobs: int) -> dict[str, Any]:
    """Build one seed's paper-scale Challenge; what the report needs from it, as JSON."""
    total: list[int] = [0]
    done: list[int] = [0]
    t0, c0, load0 = time.perf_counter(), cpu_seconds(), os.getloadavg()[0]

    def planned(jobs_: list[Any]) -> None:
        total[0] = len(jobs_)

    def finished(gen: Generated) -> None:
        done[0] += 1
        print(f"  seed {seed}: {done[0]}/{total[0]} {gen.task.id} ({gen.attempts} attempts, "
              f"{gen.seconds:.0f} s in its worker; {time.perf_counter() - t0:.0f} s so far)",
              flush=True)

    result = build_suite("challenge", seed, list(versions), jobs=jobs, versions=versions,
                         on_plan=planned, on_task=finished)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    envs: dict[str, Any] = {}
    for env, tasks in result.tasks.items():
        facts = result.manifest["build"][env]
        cal = result.manifest.get("calibration", {}).get(env, {})
        rows = []
        for task in tasks:
            ref = reference_of(task)
            rows.append({"id": task.id, "min_steps": task.certificate.min_steps,
                         "reference": None if ref is None else [ref.steps, ref.kind],
                         "ladder": task.certificate.facts["ladder"]})
        envs[env] = {"version": tasks[0].env_version, "attempts": facts["attempts"],
                     "rejections": facts["rejections"], "missed": cal.get("missed"),
                     "tasks": rows}
    return {"wall": round(wall, 1), "cpu": round(cpu, 1), "jobs": jobs,
            "load": [round(load0, 2), round(os.getloadavg()[0], 2)],
            "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "envs": envs}


def lite_best(path: Path = README) -> dict[str, tuple[str, float, str]]:
    """Per env, Lite's best inductive rung out of sample: (rung, rate, interval), from the
    README's out-of-sample table (the one place that figure is kept)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(LITE_SECTION))
    best: dict[str, tuple[str, float, str]] = {}
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 8 or cells[1] != "lite" or cells[3] != "inductive":
            continue
        env, rung, rate = cells[0], cells[2], float(cells[6].rstrip("%")) / 100
        if env not in best or rate > best[env][1]:
            best[env] = (rung, rate, cells[7])
    return best


def pct(x: float) -> str:
    """A rate as a percentage cell."""
    return f"{100 * x:.0f}" if x in (0.0, 1.0) else f"{100 * x:.1f}"


def report(dump: dict[str, Any]) -> int:
    """Print every figure of a dump; 1 when a target of issue 42 does not hold."""
    seeds = sorted(dump["seeds"], key=int)
    runs = [dump["seeds"][s] for s in seeds]
    envs = list(runs[0]["envs"])
    print(f"seeds {', '.join(seeds)} ({len(seeds)}); versions {dump['versions']}\n")
    print("| seed | wall s | CPU s | CPU / jobs | load (start, end) | finished | "
          + " | ".join(f"{e} attempts (rejections)" for e in envs) + " |")
    print("|---|---|---|---|---|---|" + "---|" * len(envs))
    for seed, run in zip(seeds, runs, strict=True):
        cells = []
        for env in envs:
            row = run["envs"][env]
            rej = ", ".join(f"{n} {k}" for k, n in sorted(row["rejections"].items())) or "0"
            cells.append(f"{row['attempts']} ({rej})")
        print(f"| {seed} | {run['wall']:.0f} | {run['cpu']:.0f} | "
              f"{run['cpu'] / run['jobs']:.0f} | {run['load'][0]:.1f}, {run['load'][1]:.1f} | "
              f"{run['finished']} | " + " | ".join(cells) + " |")
    walls = [r["wall"] for r in runs]
    cpus = [r["cpu"] / r["jobs"] for r in runs]
    missed = [f"seed {s} {e}: {r['envs'][e]['missed']}"
              for s, r in zip(seeds, runs, strict=True) for e in envs if r["envs"][e]["missed"]]
    print(f"\nwall per seed {min(walls):.0f}-{max(walls):.0f} s; CPU / jobs "
          f"{min(cpus):.0f}-{max(cpus):.0f} s; calibration targets the manifests record as "
          f"missed: {', '.join(missed) or 'none'}")
    lite = lite_best()
    failed: list[str] = []
    verdicts: list[str] = []
    print("\nPooled success over attempts (random: 4 per task), 95 % Wilson interval; tasks "
          "solved; successes per seed; price of discovery (steps beyond the reference):\n")
    print("| env | rung | kind | attempts | success | 95 % CI | tasks solved | per seed | "
          "price |")
    print("|---|---|---|---|---|---|---|---|---|")
    for env in envs:
        tasks = [t for r in runs for t in r["envs"][env]["tasks"]]
        ladders = [t["ladder"] for t in tasks]
        rates = rung_rates(ladders)
        refs = [None if t["reference"] is None else Reference(*t["reference"]) for t in tasks]
        prices = rung_prices(zip(ladders, refs, strict=True))
        for rung, row in rates.items():
            per_seed = [sum(t["ladder"][rung]["successes"] for t in r["envs"][env]["tasks"])
                        for r in runs]
            lo, hi = row["ci95"]
            price = price_text(prices.get(rung)) if any(refs) else "n/a (fixed horizon)"
            print(f"| {env} | {rung} | {rung_kind(rung, row)} | {row['attempts']} | "
                  f"{pct(row['rate'])} % | {pct(lo)}-{pct(hi)} | {row['tasks_solved']}/"
                  f"{row['tasks']} | {' '.join(map(str, per_seed))} | {price} |")
        failed += targets(env, rates, lite.get(env), runs, verdicts)
    print("\nIssue 42's targets:\n")
    print("\n".join(verdicts))
    print("\nRejections by kind, pooled:")
    for env in envs:
        pooled: dict[str, int] = {}
        for run in runs:
            for kind, n in run["envs"][env]["rejections"].items():
                pooled[kind] = pooled.get(kind, 0) + n
        count = sum(len(r["envs"][env]["tasks"]) for r in runs)
        print(f"  {env}: {count} tasks, {sum(r['envs'][env]['attempts'] for r in runs)} "
              f"candidates, rejected {pooled or 'none'}")
    print("\nKnowledge curves (probe accuracy % at 25 / 50 / 75 / 100 % of the budget, pooled "
          "over tasks and attempts):\n")
    print("| env | rung | 25 % | 50 % | 75 % | 100 % | probes |")
    print("|---|---|---|---|---|---|---|")
    for env in envs:
        curves = knowledge_curves([t["ladder"] for r in runs for t in r["envs"][env]["tasks"]])
        for rung in sorted(curves, key=rung_order):
            points = curves[rung]
            cells = [f"{100 * c / n:.1f}" if n else "-" for c, n in points]
            print(f"| {env} | {rung} | {' | '.join(cells)} | {sum(n for _, n in points)} |")
    print()
    for line in failed:
        print("TARGET MISSED", line)
    print(f"{len(failed)} targets missed (Lite: {README.name}, section "
          f"'{LITE_SECTION[3:]}': "
          + ", ".join(f"{e} {r} {pct(v)} % [{ci.replace('%', '')}]"
                      for e, (r, v, ci) in sorted(lite.items()))
          + ")")
    return 1 if failed else 0


def targets(env: str, rates: dict[str, dict[str, Any]], lite: tuple[str, float, str] | None,
            runs: list[dict[str, Any]], verdicts: list[str]) -> list[str]:
    """Issue 42's targets for one env: each verdict added to ``verdicts``; the ones missed."""
    missed: list[str] = []
    rnd = rates.get(RANDOM, {}).get("rate")
    free = {r: rates[r]["rate"] for r in model_free_rungs(rates)}
    plan = rates.get(PLANNER, {}).get("rate")
    ind = inductive_rungs(rates)
    best = max(ind, key=lambda r: rates[r]["rate"]) if ind else None
    mf_rejected = sum(r["envs"][env]["rejections"].get("model_free", 0) for r in runs)
    checks = [(f"random 0 ({pct(rnd or 0)} %)", rnd == 0),
              (f"model-free 0 ({', '.join(f'{r} {pct(v)} %' for r, v in free.items())}; "
               f"{mf_rejected} candidates rejected as model-free-solved)",
               bool(free) and all(v == 0 for v in free.values())),
              (f"planner 100 % ({pct(plan or 0)} %)", plan == 1.0)]
    if best is None:
        checks.append(("an inductive rung", False))
    else:
        b = rates[best]
        checks.append((f"best inductive {best} {pct(b['rate'])} % strictly between 0 and 100",
                       0 < b["rate"] < 1))
        if lite is None:
            checks.append(("Lite's out-of-sample rate known", False))
        else:
            lite_lo = float(lite[2].split("-")[0].rstrip("%")) / 100
            apart = "entirely" if b["ci95"][1] < lite_lo else "not entirely"
            checks.append((f"best inductive {pct(b['rate'])} % [{pct(b['ci95'][0])}-"
                           f"{pct(b['ci95'][1])}] below Lite's {lite[0]} {pct(lite[1])} % "
                           f"[{lite[2].replace('%', '')}] (interval {apart} below Lite's)",
                           b["rate"] < lite[1]))
    verdicts.append(f"- {env}: " + "; ".join(f"{'holds' if ok else 'MISSED'}: {text}"
                                    for text, ok in checks))
    missed += [f"{env}: {text}" for text, ok in checks if not ok]
    return missed


def main() -> int:
    """Build the seeds (or read a dump) and report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="+", default=["41..50"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--versions", default=PAPER_VERSIONS)
    parser.add_argument("--json", type=Path, default=None, help="keep (and resume) the figures")
    parser.add_argument("--report", type=Path, default=None, help="report a dump, build nothing")
    args = parser.parse_args()
    if args.report is not None:
        return report(json.loads(args.report.read_text(encoding="utf-8")))
    versions = {k: int(v) for k, v in (x.split("=") for x in args.versions.split(","))}
    dump: dict[str, Any] = {"versions": args.versions, "seeds": {}}
    if args.json is not None and args.json.exists():
        dump = json.loads(args.json.read_text(encoding="utf-8"))
        if dump["versions"] != args.versions:
            sys.exit(f"{args.json}: versions {dump['versions']}, not {args.versions}")
    for seed in seed_list(args.seeds):
        if str(seed) in dump["seeds"]:
            print(f"seed {seed}: in {args.json}, not built again", flush=True)
            continue
        print(f"seed {seed}: building", flush=True)
        dump["seeds"][str(seed)] = run = build_seed(seed, versions, args.jobs)
        print(f"seed {seed}: {run['wall']:.0f} s wall, {run['cpu']:.0f} s CPU", flush=True)
        if args.json is not None:
            args.json.write_text(json.dumps(dump, sort_keys=True), encoding="utf-8")
    return report(dump)


if __name__ == "__main__":
    sys.exit(main())
