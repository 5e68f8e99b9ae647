"""One 1,000-turn LLM episode at the paper's scale (#42): cost per turn under the context policy.

Builds the first trading v6 Challenge task (seed 7: 1,000 days, the witness as long as the
budget), then plays it with ``arena-gen run --agent llm`` (the Python API, in this process)
against the loopback server (``tests/fake_openai.py``, plays the witness, 0 ms latency) once per
``--max-prompt-tokens`` value (``none``: no cap, every past turn in every prompt). Prompt sizes
are measured at the server as the policy counts them (characters / 4 over the messages); the
turn rate of the first and last 100 turns shows whether a turn's cost grows with the episode.
Peak RSS is this process's (agent, server and task), read after each run.

Reproduce: ``python benchmarks/bench_long_episode.py [--caps 4000 16000 none]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI, Seen  # noqa: E402

from arena_gen.agents.llm_context import approx_tokens  # noqa: E402
from arena_gen.core.suite_io import read_suite, write_suite  # noqa: E402
from arena_gen.runner.run import RunConfig, run_suite  # noqa: E402
from arena_gen.suite.build import build_suite  # noqa: E402


def play(suite: Path, out: Path, cap: int | None) -> tuple[float, dict[int, int], dict[int, float],
                                                           str, int]:
    """Wall seconds, prompt tokens and arrival time by turn, end reason, steps."""
    tasks = list(read_suite(suite).all_tasks())
    sizes: dict[int, int] = {}
    at: dict[int, float] = {}

    def record(seen: Seen) -> None:
        sizes[seen.turn] = approx_tokens(seen.body["messages"])
        at[seen.turn] = seen.at

    config = {"model": "fake", "history": None, "max_connections": 1, "timeout": 60.0,
              "retries": 2, "backoff": 0.01, "max_prompt_tokens": cap}
    with FakeOpenAI(tasks, key=os.environ["OPENAI_API_KEY"], keep=False,
                    fault=record) as server:
        start = time.perf_counter()
        rundir = run_suite(RunConfig(suite=str(suite), agent="llm", attempts=1, out=str(out),
                                     agent_config={**config, "base_url": server.url}))
        wall = time.perf_counter() - start
    (rec,) = rundir.records()
    return wall, sizes, at, rec["end_reason"], rec["steps"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--caps", nargs="+", default=["4000", "16000", "none"])
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    print("command: python benchmarks/bench_long_episode.py " + " ".join(sys.argv[1:]))
    print(f"{os.cpu_count()} cores; load at start {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        built = build_suite("challenge", 7, ["trading"], versions={"trading": 6},
                            counts={"trading": 1})
        suite = write_suite(Path(tmp) / "suite", built.manifest, built.tasks)
        print(f"built {built.tasks['trading'][0].id} in {time.perf_counter() - start:.1f} s")
        print(f"{'cap':>6}{'end':>9}{'steps':>7}{'wall s':>8}{'t1':>7}{'t500':>8}{'t1000':>8}"
              f"{'max':>8}{'turns/s 1-100':>15}{'901-1000':>10}{'peak RSS MB':>13}{'load':>6}")
        for i, text in enumerate(args.caps):
            cap = None if text == "none" else int(text)
            wall, sizes, at, end, steps = play(suite, Path(tmp) / f"run{i}", cap)
            first = 99 / (at[100] - at[1])
            last = 99 / (at[1000] - at[901])
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{text:>6}{end:>9}{steps:>7}{wall:>8.1f}{sizes[1]:>7}{sizes[500]:>8}"
                  f"{sizes[1000]:>8}{max(sizes.values()):>8}{first:>15.0f}{last:>10.0f}"
                  f"{rss:>13.0f}{os.getloadavg()[0]:>6.2f}")


if __name__ == "__main__":
    main()
