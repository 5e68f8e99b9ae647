"""``arena-gen build``: sample, verify and freeze a preset suite."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from arena_gen.cli.options import (
    display_option,
    env_list,
    env_versions,
    secret_option,
    user_errors,
)
from arena_gen.suite.catalog import preset_names

if TYPE_CHECKING:
    from arena_gen.suite.build import BuildResult
    from arena_gen.ui import Reporter

#: ``--jobs`` for build and verify: unset means every core this process may use.
jobs_option = click.option(
    "--jobs", type=click.IntRange(min=1), default=None,
    help="Worker processes (default: the cores this process may use); the output does not "
         "depend on it.")


@click.command(name="build")
@click.option("--suite", "suite", type=click.Choice(preset_names()), required=True,
              help="Which preset to build (challenge: at the paper's scale; "
                   "challenge-moderate: the first Challenge, at its versions).")
@click.option("--seed", type=click.IntRange(min=0), required=True, help="The suite seed.")
@click.option("--env", "envs", default=None, help="Comma-separated envs (default: all).")
@click.option("--versions", "versions_text", default=None,
              help="Env versions other than the suite's, e.g. lights=5.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ./out/<suite>-<seed>).")
@jobs_option
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Build cache folder, so an interrupted or repeated build "
              "resumes (default: $XDG_CACHE_HOME/arena-gen, else ~/.cache/arena-gen); the "
              "output bytes do not depend on it.")
@click.option("--no-cache", is_flag=True, help="Neither read nor fill the build cache.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="Where tasks are generated; bytes do not depend on it.")
@click.option("--ray-address", default=None, envvar="RAY_ADDRESS",
              help="Ray cluster address (default: RAY_ADDRESS, else a local Ray instance).")
@click.option("--force", is_flag=True, default=False,
              help="Replace an existing suite in --out (a folder arena-gen did not write is "
                   "never replaced).")
@click.option("--allow-uncalibrated", is_flag=True, default=False,
              help="Write the suite even when its baseline ladder misses a calibration target "
                   "of the preset (the manifest records what is missed).")
@click.option("--proofs", is_flag=True, default=False,
              help="Then prove every exact minimum a second encoder covers (lights, repo) and "
                   "store the checked proofs in OUT/proofs, as arena-gen prove does.")
@secret_option("Seal the suite: derive its seed tree from this secret file, so its worlds "
               "cannot be rebuilt from the public ids and seed (the manifest records a "
               "commitment to the secret, never the secret; no build cache is used).")
@display_option
def command(suite: str, seed: int, envs: str | None, versions_text: str | None,
            out: Path | None, jobs: int | None,
            cache_dir: Path | None, no_cache: bool, executor: str, ray_address: str | None,
            force: bool, allow_uncalibrated: bool, proofs: bool, secret_file: Path | None,
            display: str | None) -> None:
    """Sample, verify and freeze a suite (JSONL per env + a hashed manifest)."""
    if secret_file is not None and cache_dir is not None:
        raise click.UsageError("--secret builds use no build cache (it would keep the private "
                               "worlds); drop --cache")
    from arena_gen.core import registry
    from arena_gen.core.errors import ArenaGenError
    from arena_gen.core.parallel import default_jobs
    from arena_gen.core.suite_io import check_output_folder, write_suite
    from arena_gen.suite.build import Generated, Job, build_suite, uncalibrated
    from arena_gen.suite.cache import BuildCache, default_cache_dir
    from arena_gen.suite.catalog import preset, resolve
    from arena_gen.suite.seal import Secret
    from arena_gen.ui import Reporter, clock

    ui = Reporter(display)
    jobs = jobs or default_jobs()
    with user_errors():
        name = suite
        suite, versions = resolve(name, env_versions(versions_text))
        env_names = env_list(envs) or registry.suite_envs(suite)
        want = {e: int(preset(suite, e, versions.get(e))["count"]) for e in env_names}
        out = out or Path("out") / f"{name}-{seed}"
        check_output_folder(out, force=force)  # before any work: never replace a user's folder
        secret = Secret.read(secret_file) if secret_file is not None else None
        cache = (None if no_cache or secret is not None
                 else BuildCache(cache_dir or default_cache_dir()))
        cost: dict[tuple[str, int], float] = {}
        with ui.work(f"build {suite} seed {seed} ({jobs} jobs)", want, jobs=jobs) as work:
            def on_plan(plan: list[Job]) -> None:
                cost.update({(j.env, j.index): j.cost for j in plan})
                work.plan({e: sum(c for (env, _), c in cost.items() if env == e)
                           for e in env_names})

            def on_task(g: Generated) -> None:
                work.finished(g.task.env, rejected=sum(g.rejections.values()),
                              cached=g.cached,
                              cost=cost.get((g.task.env, int(g.task.seed_path[3])), 1.0))

            try:
                result = build_suite(suite, seed, env_names, jobs=jobs, executor=executor,
                                     ray_address=ray_address, on_task=on_task,
                                     on_start=work.started, on_plan=on_plan, cache=cache,
                                     secret=secret, versions=versions)
            except KeyboardInterrupt:
                if cache is not None:
                    ui.line(f"interrupted after {work.finished_count} of {work.total} tasks "
                            f"({clock(work.elapsed())}); the finished ones are cached: run "
                            f"the same command to resume")
                raise
        missed = uncalibrated(result.manifest)
        if missed and not allow_uncalibrated:
            raise ArenaGenError(
                "the suite misses calibration targets of its presets, so it was not written "
                "(its tasks are cached; add --allow-uncalibrated to write it anyway):\n  "
                + "\n  ".join(missed))
        write_suite(out, result.manifest, result.tasks, force=force)
        if proofs:
            _prove(out, result, jobs, ui)
        for env, row in result.manifest.get("calibration", {}).items():
            for note in row.get("noted", []):
                ui.line(f"note: {env}: {note} (reported, not refused: every task resists "
                        f"model-free play)")
    rows = []
    for env in env_names:
        gens = result.generated[env]
        known = [s for s in (g.task.certificate.min_steps for g in gens) if s is not None]
        bounded = sum(1 for g in gens if g.task.certificate.min_steps is None
                      and "min_steps_bounds" in g.task.certificate.facts)
        spread = f"{min(known)}-{max(known)}" if known else ("" if bounded else "fixed horizon")
        if bounded:
            spread += f" (+{bounded} with bounds only)"
        rej = sum(sum(g.rejections.values()) for g in gens)
        rows.append([env, len(gens), spread, rej, sum(g.cached for g in gens),
                     f"{result.per_env_seconds[env]:.2f}"])
    ui.table(f"Suite {suite} (seed {seed}) -> {out}",
             ["env", "tasks", "min_steps", "rejected", "cached", "seconds"], rows)
    calibration = result.manifest.get("calibration") or {}
    if calibration:
        from arena_gen.core.calibration import rung_order

        rungs = sorted({r for row in calibration.values() for r in row["rungs"]}, key=rung_order)
        ui.table("Baseline ladder: success rate over attempts [95 % interval]",
                 ["rung", *calibration],
                 [[rung, *(_rate(row["rungs"].get(rung)) for row in calibration.values())]
                  for rung in rungs])
    ui.line(f"suite sha256 {result.manifest['suite_sha256']}")
    if secret is not None:
        ui.line(f"sealed: keep {out} and the secret private; publish the copy `arena-gen seal "
                f"{out} --secret FILE --out PUBLIC` writes (secret commitment "
                f"{secret.commitment[:16]}...)")
    hits = sum(g.cached for gens in result.generated.values() for g in gens)
    ui.line(f"built in {result.seconds:.2f} s with {jobs} jobs"
            + (f", {hits} tasks from the cache {cache.root}" if cache is not None and hits else ""))


def _rate(row: dict[str, object] | None) -> str:
    """``40% [25-57]`` for a ladder rung's suite rate (blank when the env lacks the rung)."""
    if row is None:
        return ""
    lo, hi = cast("list[float]", row["ci95"])
    return f"{row['rate']:.0%} [{100 * lo:.0f}-{100 * hi:.0f}]"


def _prove(out: Path, result: BuildResult, jobs: int, ui: Reporter) -> None:
    """Prove the written suite's exact minima beside it, every proof checked before it is kept."""
    from arena_gen.proofs.produce import prove_suite
    from arena_gen.proofs.store import ENCODERS
    from arena_gen.ui import clock

    total = sum(len(tasks) for env, tasks in result.tasks.items() if env in ENCODERS)
    start = time.perf_counter()
    with ui.progress(total, f"prove {out.name}") as advance:
        done = prove_suite(out, on_task=lambda _proved, task: advance(task.id), jobs=jobs)
    ui.line(f"{len(done)} proof(s) written and checked in {clock(time.perf_counter() - start)}, "
            f"{sum(p.entry['bytes'] for p in done)} bytes compressed, in {out / 'proofs'}")
