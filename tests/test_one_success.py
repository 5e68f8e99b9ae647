"""One definition of success: the trajectory, the progress line, the run table, the scorer's
success rate and the evolution curve's last point agree, per env, on real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena_gen.runner.run import RunConfig, run_suite, summarize
from arena_gen.scoring.score import curves, score_run

LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"
#: A few released Lite tasks per env (the heuristic succeeds on some, fails on others).
TASKS = [f"{env}-lite-7-{i:04d}" for env in ("lights", "trading", "energy", "repo")
         for i in range(4)]


@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_success_counts_agree_everywhere(agent: str, tmp_path: Path) -> None:
    progress: dict[str, int] = {}

    def on_episode(rec: dict) -> None:  # what the CLI's progress line counts
        progress[rec["env"]] = progress.get(rec["env"], 0) + bool(rec["success"])

    out = tmp_path / agent
    rundir = run_suite(RunConfig(suite=str(LITE), agent=agent, attempts=2, out=str(out),
                                 tasks=TASKS), on_episode=on_episode)
    records = rundir.records()
    table = summarize(records)
    summary = score_run(out)
    curve = curves(records)
    total = 0
    for env in ("lights", "trading", "energy", "repo"):
        recs = [r for r in records if r["env"] == env]
        flags = sum(bool(r["success"]) for r in recs)
        total += flags
        assert progress.get(env, 0) == flags == table[env]["success"], env
        rate = summary["envs"][env]["success_rate"]
        assert rate == pytest.approx(100 * flags / len(recs), abs=1e-6), env
        assert curve[env]["evolution"][-1] == pytest.approx(flags / len(recs), abs=1e-4), env
    if agent == "heuristic":
        assert 0 < total < len(records)  # the comparison is not all-zero or all-one
