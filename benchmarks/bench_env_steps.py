"""Env steps/s per core, arena-gen against the reference OdysseyArena envs, same worlds, same text.

    ARENA_GEN_ODYSSEY_CHECKOUT=DIR nice -n 10 python benchmarks/bench_env_steps.py \
        [--repeat 3] [--envs lights,trading,energy,repo] [--num-envs 8] [--data DIR]
        [--sequences witness,errors] [--random-rate 0.3]

Worlds: the 120 released odyssey-lite tasks (``suites/odyssey-lite``, imported from the public
reference data). The manifest names each task's source file and index; the reference env gets
that source world, arena-gen gets the imported task, so both sides play the SAME world.

Actions: per task, its certified witness with an invalid action slipped in before about one
step in seven (seeded from ``SeedSequence([seed, env, task])``; the same text on both sides):
a non-number bulb, an unknown stock or non-JSON trade, a non-JSON dispatch, an unknown package
or command. Both sides stop at their own ``done``; ``solved`` counts the episodes that ended
done on the reference side (trading: the last day reached; it has no success check) and
``success`` on arena-gen's side.

Error-driven repo actions (``--sequences errors``, on by default for repo; issue 41): per task,
each turn the repo heuristic's repair of the error the previous observation names (it reads
only the terminal) or, with probability ``--random-rate`` (0.3), a seeded random command
(installs pinned, bare or ranged, uninstalls, Python picks, script runs, listings, malformed
texts), seeded from ``SeedSequence([seed, env, task, 1])``; recorded once by playing arena-gen's
text env, then the same texts replayed on both sides, as the rows ``reference err`` and ``text
err`` (interleaved rounds, the median within-round ratio, as below).

Rows, one process and one core each, a pass being all 30 tasks of an env (played in turn as
often as it takes to reach ``--min-steps`` action texts); ``--repeat`` rounds, each running every
row's pass once in turn (interleaved: the machine's speed drifts by tens of per cent between
minutes, and a drift between rows read as a ratio was most of the spread of earlier runs):

- ``reference``: the reference env class (imported by path from the checkout, never copied)
  built from the source world, then each action text turned into its action the way its own
  inference loop does (``int`` for lights, ``json.loads`` for trading and energy, the raw
  command for repo; a text its loop rejects is a skipped turn), stepped, and the observation
  text its loop shows the model rendered (``return_obs`` / ``get_render_obs``);
- ``text``: ``registry.make_env(task)``, ``reset()``, then ``step(text)`` (parse, rules, the
  observation text, the turn budget);
- ``sync``: ``make_vec(env, N, suite="odyssey-lite")`` in sync mode (built once, outside the
  time), from ``reset(seed=...)``, each sub-env playing its current task's actions, for as many
  sub-env steps as one ``text`` pass (Gymnasium's autoreset step after an episode ends counts
  as a step, as in ``bench_vector.py``);
- ``sync lean``: the same with ``make_vec(..., info="lean")`` (a reset's info is the episode's
  keys, a step's only ``success`` when the episode ends: what a training loop that reads no
  per-step facts needs).

Each side plays at most arena-gen's turn budget of texts (the reference loops' default
``max_steps`` is the same, lights 200, trading and repo 120, except energy: 120 against 132).

Steps/s is steps over wall seconds and over CPU seconds of this process, the median over the
rounds (the cores are shared; the 1-minute load average is printed). Ratio = arena-gen /
reference CPU steps/s within a round, the median over the rounds (above 1: arena-gen is
faster). Stream tasks/s per level: ``bench_stream.py`` and ``bench_levels.py``; async vector
envs: ``bench_vector.py``. Without the environment variable the script prints why and exits 0.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from bench_reference import ENV_VAR, load  # the one by-path loader of reference files

SUITE = "odyssey-lite"
#: The released reference data, beside the repository as the differential tests expect it.
DATA = Path(__file__).resolve().parents[2] / "shared" / "reference-data" / "odyssey-arena"
DATA_DIRS = {"lights": "lights", "trading": "trading", "energy": "energy", "repo": "repo"}
INVALID_RATE = 1 / 7
#: Invalid action texts per env: each is rejected or harmless on both sides.
INVALID = {
    "lights": ["x", "toggle 1", ""],
    "trading": ["buy S0 10", '{"buy": {"S99": 5}}', "hold"],
    "energy": ["thermal 100", "", "{thermal: 1}"],
    "repo": ["pip install pkg99", "ls", "pip installx pkg0", "python nothere.py"],
}
#: Reference file, class name per env (relative to the checkout).
REFERENCE = {
    "lights": ("LightEnv/TextEnv_v2.py", "LightBulbEnv"),
    "trading": ("TradeEnv/TradeEnv_v2.py", "TradeArenaEnv_Deterministic"),
    "energy": ("EnergyEnv/EnergyEnv_v5.py", "DynamicEnergyGrid"),
    "repo": ("RepoEnv/RepoEnv_v7.py", "ComputerEnvSetupInductionEnvV7_5"),
}


@dataclass
class Episode:
    """One task: its source world (reference side), its imported task, its action texts."""

    world: Any
    task: Any
    actions: list[str]


def episodes(env: str, data: Path, seed: int, env_index: int) -> list[Episode]:
    """The suite's tasks of ``env`` with their source worlds (checked against the manifest's
    sha256) and their seeded action texts."""
    from arena_gen.core import registry
    from arena_gen.core.suite_io import read_manifest, read_suite, resolve_suite

    root, manifest = read_manifest(resolve_suite(SUITE))
    build = manifest["build"][env]
    hashes = {s["file"]: s["sha256"] for s in build["sources"]}
    files: dict[str, Any] = {}
    out = []
    for k, task in enumerate(read_suite(root, envs=[env]).tasks[env]):
        name, index = build["entries"][task.id][0], build["entries"][task.id][1]
        if name not in files:
            raw = (data / DATA_DIRS[env] / name).read_bytes()
            if hashlib.sha256(raw).hexdigest() != hashes[name]:
                raise SystemExit(f"{data / DATA_DIRS[env] / name}: not the released file")
            files[name] = json.loads(raw)
        doc = files[name]
        world = doc[index] if isinstance(doc, list) else doc
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, env_index, k])))
        budget = registry.make_env(task).budget  # both sides stop there
        actions = []
        for step in task.certificate.witness:
            if rng.random() < INVALID_RATE:
                bad = INVALID[env]
                actions.append(bad[int(rng.integers(len(bad)))])
            actions.append(step)
        out.append(Episode(world, task, actions[:budget]))
    return out


#: Error-driven repo sequences: the share of turns that send a seeded random command instead of
#: the repair the previous observation's error calls for (the repair agent then reads its result).
RANDOM_RATE = 0.3


def _random_repo(public: dict[str, Any], rng: np.random.Generator) -> str:
    """A seeded random repo command from the task's public index: installs (pinned, bare, a
    range), uninstalls, a Python pick, a script run, a listing, or a malformed text."""
    from arena_gen.envs.repo.common import ANY_PYTHON

    names = sorted(public["packages"])
    name = names[int(rng.integers(len(names)))]
    versions = public["packages"][name]
    v, w = (versions[int(rng.integers(len(versions)))] for _ in range(2))
    scripts = list(public["scripts"])
    pythons = list(public["pythons"]) or [ANY_PYTHON]
    python = pythons[int(rng.integers(len(pythons)))]
    table = [f"pip install {name}=={v}", f"pip install {name}", f"pip install {name}>={v},<{w}",
             f"pip install {name}>={v}", f"pip uninstall {name}", f"pip install python=={python}",
             f"python {scripts[int(rng.integers(len(scripts)))]}", "python run.py", "pip list",
             "repo tree", f"pip install {name}=={v}.9", "pip install pkg99", "ls", "",
             f"pip show {name}", f"<action>pip install {name}=={w}</action>", "python3 run.py"]
    return table[int(rng.integers(len(table)))]


def error_episodes(eps: list[Episode], seed: int, env_index: int,
                   rate: float = RANDOM_RATE) -> list[Episode]:
    """The same repo tasks with error-driven action texts: each turn the repo heuristic's repair
    of the previous observation's error (``RepoV2HeuristicAgent``: it reads only the terminal),
    or, one turn in about three, a seeded random command; recorded by playing arena-gen's text
    env once, then replayed as fixed texts on both sides."""
    from arena_gen.core import registry
    from arena_gen.core.agent import TaskView

    out = []
    for k, ep in enumerate(eps):
        rng = np.random.Generator(np.random.PCG64(
            np.random.SeedSequence([seed, env_index, k, 1])))
        agent = registry.for_task(ep.task).load("heuristic")()
        agent.reset(TaskView.of(ep.task, "inductive"), "inductive", rng)
        env = registry.make_env(ep.task)
        obs, _ = env.reset()
        actions: list[str] = []
        while len(actions) < env.budget:
            text = (_random_repo(ep.task.public, rng) if rng.random() < rate
                    else agent.act(str(obs)))
            actions.append(text)
            obs, _, terminated, truncated, _ = env.step(text)
            if terminated or truncated:
                break
        out.append(Episode(ep.world, ep.task, actions))
    return out


def _lights_step(ref: Any, text: str) -> tuple[str, bool]:
    """The reference loop's lights turn: an integer index in range, else a skipped turn."""
    try:
        bulb = int(text)
    except ValueError:
        return "invalid", False
    if not 0 <= bulb < ref.num_bulbs:
        return "invalid", False
    obs, feedback, done, _ = ref.step(bulb)
    return f"{feedback} {obs}", bool(done)


def _trading_step(ref: Any, text: str) -> tuple[str, bool]:
    """The reference loop's trading turn: JSON, else hold ({}), then the day advances."""
    try:
        action = json.loads(text) if text else {}
    except ValueError:
        action = {}
    _, _, done, _ = ref.step(action if isinstance(action, dict) else {})
    return str(ref.get_render_obs()), bool(done)


def _energy_step(ref: Any, text: str) -> tuple[str, bool]:
    """The reference loop's energy turn: JSON, else a skipped turn."""
    try:
        action = json.loads(text)
    except ValueError:
        return "invalid", False
    if not isinstance(action, dict):
        return "invalid", False
    _, _, done, _ = ref.step(action)
    return str(ref.return_obs()), bool(done)


def _repo_step(ref: Any, text: str) -> tuple[str, bool]:
    """The reference loop's repo turn: the raw command."""
    _, _, done, _ = ref.step(text)
    return str(ref.return_obs()), bool(done)


def _lights_make(cls: Any, world: Any) -> Any:
    return cls(custom_logic=world["custom_logic"], num_bulbs=world["level"])


def _plain_make(cls: Any, world: Any) -> Any:
    ref = cls(world)
    ref.reset()
    return ref


REF_STEP: dict[str, Callable[[Any, str], tuple[str, bool]]] = {
    "lights": _lights_step, "trading": _trading_step, "energy": _energy_step,
    "repo": _repo_step}
REF_MAKE: dict[str, Callable[[Any, Any], Any]] = {
    "lights": _lights_make, "trading": _plain_make, "energy": _plain_make, "repo": _plain_make}


def reference_pass(env: str, cls: Any, eps: list[Episode]) -> tuple[int, int]:
    """(steps, solved) playing every episode through the reference env."""
    step, make = REF_STEP[env], REF_MAKE[env]
    steps = solved = 0
    for ep in eps:
        ref = make(cls, ep.world)
        done = False
        for text in ep.actions:
            _, done = step(ref, text)
            steps += 1
            if done:
                break
        solved += done
    return steps, solved


def text_pass(eps: list[Episode]) -> tuple[int, int]:
    """(steps, solved) playing every episode through arena-gen's text env."""
    from arena_gen.core import registry

    steps = solved = 0
    for ep in eps:
        env = registry.make_env(ep.task)
        env.reset()
        for text in ep.actions:
            _, _, terminated, truncated, _ = env.step(text)
            steps += 1
            if terminated or truncated:
                break
        solved += bool(env.success)
    return steps, solved


def vector_pass(envs: Any, eps: list[Episode], target: int) -> tuple[int, int]:
    """(steps, episodes ended by ``terminated``) of a sync vector env over the suite, played
    for ``target`` sub-env steps from ``reset(seed=[0..N-1])`` (built once, outside the time)."""
    plans = {ep.task.id: ep.actions for ep in eps}
    num_envs = envs.num_envs
    _, info = envs.reset(seed=list(range(num_envs)))
    current = [str(t) for t in info["task_id"]]
    turn, ending = [0] * num_envs, [False] * num_envs
    steps = solved = 0
    while steps < target:
        actions = []
        for k in range(num_envs):
            plan = plans[current[k]]
            actions.append("" if ending[k] or turn[k] >= len(plan) else plan[turn[k]])
            turn[k] += 0 if ending[k] else 1
        _, _, terminated, truncated, info = envs.step(tuple(actions))
        steps += num_envs
        fresh = info.get("_task_id")
        for k in range(num_envs):
            if fresh is not None and fresh[k]:
                current[k], turn[k] = str(info["task_id"][k]), 0
        solved += int(np.count_nonzero(terminated))
        ending = [bool(a or b) for a, b in zip(terminated, truncated, strict=True)]
    return steps, solved


def run_once(fn: Callable[[], tuple[int, int]]) -> tuple[int, int, float, float]:
    """(steps, solved, wall s, CPU s) of one pass."""
    wall, cpu = time.perf_counter(), time.process_time()
    steps, solved = fn()
    return steps, solved, time.perf_counter() - wall, time.process_time() - cpu


def interleaved(rows: dict[str, Callable[[], tuple[int, int]]], repeat: int
                ) -> dict[str, tuple[int, int, float, float, float]]:
    """Per row (steps, solved, median wall steps/s, median CPU steps/s, median ratio to the
    first row): ``repeat`` rounds, each running every row once in turn, and each ratio taken
    within one round, so a machine that drifts between rounds moves both sides of a ratio."""
    runs: dict[str, list[tuple[int, int, float, float]]] = {name: [] for name in rows}
    for _ in range(repeat):
        for name, fn in rows.items():
            runs[name].append(run_once(fn))
    base = next(iter(rows))
    out = {}
    for name, done in runs.items():
        steps, solved = done[-1][0], done[-1][1]
        ratios = [(s / c) / (bs / bc) for (s, _, _, c), (bs, _, _, bc)
                  in zip(done, runs[base], strict=True)]
        out[name] = (steps, solved, statistics.median(s / w for s, _, w, _ in done),
                     statistics.median(s / c for s, _, _, c in done), statistics.median(ratios))
    return out


def errors(env: str, cls: Any, eps: list[Episode], args: argparse.Namespace) -> None:
    """The error-driven rows: the reference and arena-gen's text env on the same texts."""
    eps = eps * max(1, -(-args.min_steps // sum(len(ep.actions) for ep in eps)))
    text_pass(eps)  # warm-up (imports, compiles)
    reference_pass(env, cls, eps[:3])
    rows: dict[str, Callable[[], tuple[int, int]]] = {
        "reference err": lambda: reference_pass(env, cls, eps),
        "text err": lambda: text_pass(eps)}
    for row, (steps, solved, wall, cpu, ratio) in interleaved(rows, args.repeat).items():
        shown = "" if row == "reference err" else f"{ratio:.2f}"
        print(f"{env:8} {row:14} {steps:6d} {solved:7d} {wall:13.0f} {cpu:12.0f} "
              f"{shown:>11} {os.getloadavg()[0]:5.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--envs", default="lights,trading,energy,repo")
    parser.add_argument("--num-envs", type=int, default=8, help="sub-envs of the sync row")
    parser.add_argument("--seed", type=int, default=0, help="seed of the invalid actions")
    parser.add_argument("--sequences", default="witness,errors",
                        help="witness (every env), errors (repo: error-driven repair texts)")
    parser.add_argument("--random-rate", type=float, default=RANDOM_RATE,
                        help="errors: the share of seeded random commands")
    parser.add_argument("--min-steps", type=int, default=3000,
                        help="replay the 30 episodes until a pass has at least this many texts")
    parser.add_argument("--data", type=Path, default=DATA,
                        help="the released reference data (lights/, trading/, energy/, repo/)")
    parser.add_argument("--quick", action="store_true", help="one repeat (benchmarks/run.py)")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    checkout = os.environ.get(ENV_VAR)
    if not checkout:
        print(f"skipped: set {ENV_VAR} to a local checkout of the public OdysseyArena "
              f"repository ({', '.join(f for f, _ in REFERENCE.values())})")
        return
    if not args.data.is_dir():
        print(f"skipped: no released reference data at {args.data} (pass --data DIR)")
        return
    root = Path(checkout).expanduser()
    import gymnasium as gym

    from arena_gen.train.vector import make_vec

    gym.logger.min_level = gym.logger.ERROR  # v1/v2 ids are old on purpose: no upgrade notes
    print(f"one process, one core; median of {args.repeat} interleaved rounds; suite {SUITE}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'env':8} {'row':14} {'steps':>6} {'solved':>7} {'steps/s wall':>13} "
          f"{'steps/s CPU':>12} {'x ref (CPU)':>11} {'load':>5}")
    for i, env in enumerate(args.envs.split(",")):
        relative, cls_name = REFERENCE[env]
        cls = getattr(load(root, relative, f"_odyssey_{env}_ref"), cls_name)
        eps = episodes(env, args.data, args.seed, i)
        if env == "repo" and "errors" in args.sequences.split(","):
            errors(env, cls, error_episodes(eps, args.seed, i, args.random_rate), args)
        if "witness" not in args.sequences.split(","):
            continue
        eps = eps * max(1, -(-args.min_steps // sum(len(ep.actions) for ep in eps)))
        target = text_pass(eps)[0]  # warm-up (imports, compiles); the sync rows' step count
        reference_pass(env, cls, eps[:3])
        rows: dict[str, Callable[[], tuple[int, int]]] = {
            "reference": lambda: reference_pass(env, cls, eps),  # noqa: B023
            "text": lambda: text_pass(eps)}  # noqa: B023
        vectors = []
        for info in ("full", "lean"):
            row = f"sync x{args.num_envs}" + (" lean" if info == "lean" else "")
            envs = make_vec(env, args.num_envs, suite=SUITE, info=info)
            vectors.append(envs)
            rows[row] = functools.partial(vector_pass, envs, eps, target)
            try:
                rows[row]()  # warm-up: every suite game compiled
            except Exception as exc:  # a failing row is a finding: print it, go on
                print(f"{env:8} {row}: fails: {type(exc).__name__}: {exc}")
                del rows[row]
        for row, (steps, solved, wall, cpu, ratio) in interleaved(rows, args.repeat).items():
            shown = "" if row == "reference" else f"{ratio:.2f}"
            print(f"{env:8} {row:14} {steps:6d} {solved:7d} {wall:13.0f} {cpu:12.0f} "
                  f"{shown:>11} {os.getloadavg()[0]:5.1f}", flush=True)
        for envs in vectors:
            envs.close()
    print("x ref = arena-gen steps/s over the reference's, CPU time (above 1: arena-gen faster);"
          " solved: reference done, arena-gen success (sync: episodes ended by terminated)")


if __name__ == "__main__":
    main()
