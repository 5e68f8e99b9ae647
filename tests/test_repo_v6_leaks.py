"""Repo v6 (issues 38, 42): the paper-scale Challenge's messages still give nothing away.

Issue 38 asked that conflict messages name no bound taken from the solution and that a hidden
rule's error have the form of every other error (fixed in v5's game, which v6 plays unchanged).
Attacked here on v6 Challenge worlds of three seeds, on every feedback line an agent can see:
the certified witness's, the inductive rung's (the ring learner), the random agent's commands,
a random command from every state those reach, and every declared conflict provoked. Each
``pkgN V`` / ``pkgN==V`` a line names is a version the state (before or after the command) or
the command itself shows; a conflict names the anchor's installed version only; run-time errors
have one form whatever their cause (v6 worlds hold no hidden rule), and agree with the state.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
from test_repo_v5 import conflict_messages, names_solution

from arena_gen.core import registry
from arena_gen.core.episode import run_episode
from arena_gen.core.game import WorldView, play
from arena_gen.core.task import Task
from arena_gen.envs.repo.agents.rings import RepoRingLearnerAgent
from arena_gen.envs.repo.common import ABSENT, random_command
from arena_gen.envs.repo.game_v2 import RepoEvent, RepoV2
from arena_gen.envs.repo.game_v6 import RepoGameV6
from arena_gen.envs.repo.sampler_v6 import PRESETS, sample_world
from arena_gen.suite.build import build_suite

#: The released seed and two others.
SEEDS = (7, 19, 23)
#: Random commands played from the start, per world.
WALK = 1000
_PAIR = re.compile(r"\b(pkg\d+)(?: |==)(\d+\.\d+)\b")
_CONFLICT = re.compile(r"ERROR: (pkg\d+) (\S+) cannot sit beside (pkg\d+) (\S+) "
                       r"\((\1==\2) is not compatible with (\3==\4)\)\. Nothing was changed\.")
_RUN = re.compile(r"ERROR: (?:run\.py stopped in \S+:|\S+ failed:)\n  (.*)")
#: The one run-time error line (v4's) of every failing API use.
_ONE_FORM = re.compile(r"ImportError: cannot import name '\w+' from '(pkg\d+)\.\w+' "
                             r"\(imported by '[^']+'\)")


@dataclass(frozen=True)
class Line:
    """One feedback line an agent saw: the state before, the command, the state after."""

    before: RepoV2
    command: str
    after: RepoV2
    event: RepoEvent


@functools.cache
def challenge_task(seed: int) -> Task:
    """The first repo v6 Challenge task of ``seed`` (versions passed: the default may move)."""
    built = build_suite("challenge", seed, ["repo"], versions={"repo": 6}, counts={"repo": 1})
    (task,) = built.tasks["repo"]
    assert task.env_version == 6
    return task


def played(game: RepoGameV6, commands: list[str]) -> Iterator[Line]:
    """The lines of ``commands`` played from the start."""
    p = play(game, commands)
    for i, event in enumerate(p.events):
        yield Line(p.states[i], commands[i], p.states[i + 1], event)


def random_text(task: Task, rng: np.random.Generator) -> str:
    """The random agent's command, or (one in four) an install of a version range."""
    if rng.random() < 0.75:
        return random_command(task.public, rng, ("pip list", "repo tree"))
    name = sorted(task.public["packages"])[int(rng.integers(len(task.public["packages"])))]
    low = task.public["packages"][name][int(rng.integers(2))]
    return f"pip install {name}>={low}" if rng.random() < 0.5 else f"pip install {name}<{low}"


@functools.cache
def transcript(seed: int) -> tuple[Line, ...]:
    """Every line the attack collects on seed ``seed``'s world (module docstring)."""
    task = challenge_task(seed)
    game = registry.make_game(task)
    rng = np.random.default_rng(np.random.SeedSequence([38, 6, seed]))
    learner = run_episode(task, RepoRingLearnerAgent())
    lines = [*played(game, list(task.certificate.witness)),
             *played(game, [t["action"] for t in learner["turns"]]),
             *played(game, [random_text(task, rng) for _ in range(WALK)])]
    for line in list(lines):  # one random command from every state reached
        command = random_text(task, rng)
        after, event = game.act(line.after, command)
        lines.append(Line(line.after, command, after, event))
    return tuple(lines)


def requested(game: RepoGameV6, command: str) -> tuple[str, str] | None:
    """The (package, version) an install command picks from the public index (the newest
    version its request matches), or None."""
    r = game.rules
    bare = re.fullmatch(r"pip install (pkg\d+)", command.strip())
    if bare is not None and bare[1] in r.index:
        p = r.index[bare[1]]
        return bare[1], r.vname(p, max(range(len(r.versions[p])), key=r.versions[p].__getitem__))
    pick = game.exact_pick(command)
    return None if pick is None else (r.names[pick[0]], r.vname(*pick))


def shown(game: RepoGameV6, state: RepoV2, name: str) -> str | None:
    """The version of ``name`` that ``state`` shows (pip list), or None."""
    r = game.rules
    p = r.index[name]
    return None if state.installed[p] == ABSENT else r.vname(p, state.installed[p])


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_every_version_a_line_names_is_shown_by_the_state_or_the_command(seed: int) -> None:
    task = challenge_task(seed)
    game = registry.make_game(task)
    lines = transcript(seed)
    assert len(lines) >= 2 * (WALK + len(task.certificate.witness))
    for line in lines:
        for name, version in _PAIR.findall(line.event.feedback):
            assert version in (shown(game, line.before, name), shown(game, line.after, name)) \
                or (name, version) == requested(game, line.command), line


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_conflicts_name_the_installed_side_only(seed: int) -> None:
    """Seen conflicts: the anchor's installed version, the package as commanded; no bound
    from the world, so none from the certified solution (issue 38's tell), and the named version
    is the solution's no more often than chance (what the state lists)."""
    task = challenge_task(seed)
    game = registry.make_game(task)
    solution = play(game, list(task.certificate.witness)).states[-1]
    assert solution.run_ok
    conflicts = [line for line in transcript(seed) if line.event.kind == "conflict"]
    assert len(conflicts) >= 100
    named = listed = 0.0
    for line in conflicts:
        m = _CONFLICT.fullmatch(line.event.feedback)
        assert m is not None, line
        assert m[4] == shown(game, line.before, m[3]) and line.after == line.before
        assert (m[1], m[2]) == requested(game, line.command)
        anchor = game.rules.index[m[3]]
        assert not names_solution(game, anchor, line.before.installed[anchor],
                                  line.event.feedback, solution)
        # chance: a package picked at random from what pip list shows in the same state
        named += line.before.installed[anchor] == solution.installed[anchor]
        held = [i for i, x in enumerate(line.before.installed) if x != ABSENT]
        listed += sum(line.before.installed[i] == solution.installed[i] for i in held) / len(held)
    # the named version is the solution's no more often (seeds 7, 19, 23: 67 / 66 / 63 %)
    # than a listed package's is (74 / 75 / 74 %)
    assert named <= listed
    # every declared conflict of the world (one a rule: 4 a package in groups of 5), provoked
    provoked = conflict_messages(game)
    assert len(provoked) == sum(len(rows) for entries in task.world["version_conflicts"].values()
                                for rows in entries.values()) >= 4 * len(task.public["packages"])
    assert not any(names_solution(game, anchor, x, m, solution)
                   for _, _, anchor, x, m in provoked)


def test_a_conflict_message_does_not_depend_on_the_world_s_text() -> None:
    """The world's conflict text (which names the bound) is never printed: rewriting every one
    leaves every provoked message byte-identical."""
    original = sample_world(PRESETS["challenge"], np.random.SeedSequence([38, 6]))
    world = copy.deepcopy(original)
    for entries in world["version_conflicts"].values():
        for rows in entries.values():
            for row in rows:
                row[3] = "SECRET BOUND TEXT"
    before = conflict_messages(RepoGameV6(WorldView(original)))
    after = conflict_messages(RepoGameV6(WorldView(world)))
    assert before == after and len(before) >= 100
    assert not any("SECRET" in m for *_, m in after)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_every_run_time_error_has_the_one_form(seed: int) -> None:
    """v6 worlds hold no hidden or consistency rule; every run-time error, a package not
    installed or one off the version that exports its symbol, is v4's one line (the state, not
    the message, tells the two apart), so no error's form singles out a kind of rule."""
    task = challenge_task(seed)
    game = registry.make_game(task)
    assert task.world["hidden_rules"] == [] and task.world["consistency_rules"] == []
    runs = [line for line in transcript(seed) if line.event.check is not None]
    assert {line.event.check for line in runs} == {"module_missing", "symbol_missing"}
    for line in runs:
        m = _RUN.fullmatch(line.event.feedback)
        assert m is not None, line
        error = _ONE_FORM.fullmatch(m[1])
        assert error is not None, line
        installed = shown(game, line.before, error[1]) is not None
        assert installed == (line.event.check == "symbol_missing"), line
