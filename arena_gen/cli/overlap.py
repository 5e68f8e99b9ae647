"""``arena-gen overlap``: exact and near duplicate worlds between two suites or streams."""

from __future__ import annotations

import click

from arena_gen.cli.build import jobs_option
from arena_gen.cli.options import display_option, user_errors


@click.command(name="overlap")
@click.argument("a")
@click.argument("b")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Pairs listed (all are counted).")
@jobs_option
@display_option
def command(a: str, b: str, limit: int, jobs: int | None, display: str | None) -> None:
    """Report worlds of suite/stream A that duplicate worlds of B, exactly (equal up to the
    env's renaming) or nearly (differing in one part alone). A and B are suite names
    (lite, challenge, odyssey-lite) or folders written by build, import or stream; only the
    envs A holds are read of B."""
    from arena_gen.core.parallel import default_jobs
    from arena_gen.core.suite_io import read_suite, resolve_suite
    from arena_gen.train.overlap import all_prints, matches
    from arena_gen.ui import Reporter

    ui = Reporter(display)
    jobs = jobs or default_jobs()
    with user_errors():
        first = read_suite(resolve_suite(a))
        # only A's envs of B can match: B's other env files are not read or fingerprinted
        suites = [first, read_suite(resolve_suite(b), envs=set(first.tasks))]
        prints = [all_prints([t for ts in s.tasks.values() for t in ts], jobs=jobs)
                  for s in suites]
    found = matches(prints[0], prints[1])
    envs = sorted(first.tasks)
    rows = []
    for env in envs:
        mine = [m for m in found if m.env == env]
        rows.append([env, sum(p.env == env for p in prints[0]),
                     sum(p.env == env for p in prints[1]),
                     sum(m.kind == "exact" for m in mine), sum(m.kind == "near" for m in mine)])
    ui.table(f"Overlap of {a} and {b}", ["env", "tasks A", "tasks B", "exact", "near"], rows)
    if found and limit:
        ui.table(f"Duplicate pairs ({min(limit, len(found))} of {len(found)})",
                 ["env", "A", "B", "kind", "differs in"],
                 [[m.env, m.a, m.b, m.kind, m.part or ""] for m in found[:limit]])
