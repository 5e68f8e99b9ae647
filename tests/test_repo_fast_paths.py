"""Repo v2's step fast paths (#41) give what the slow definitions give: success read without the
checks' evidence, the installed names and command readings remembered."""

from __future__ import annotations

import numpy as np
import pytest

from arena_gen.core import registry
from arena_gen.core.game import ActionError, Game
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.repo.common import ABSENT, pick
from arena_gen.envs.repo.game_v2 import RepoGameV2, RepoV2, _read_command, parse_command


@pytest.mark.parametrize("suite", ["odyssey-lite", "lite"])
def test_met_and_installed_names_equal_the_definitions(suite: str) -> None:
    """Random play (and each witness) on six repo tasks: every step's success equals every
    rubric check met, and the remembered names equal the names built afresh."""
    tasks = read_suite(suite, envs=["repo"]).tasks["repo"][:6]
    seen = {True: 0, False: 0}
    for k, task in enumerate(tasks):
        env = registry.make_env(task)
        game = env.game
        assert isinstance(game, RepoGameV2)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([41, k])))
        env.reset()
        texts = [env.sample_action(rng) for _ in range(60)] + list(task.certificate.witness)
        for text in texts:
            _, _, terminated, _, info = env.step(text)
            facts = game.facts(env.state)
            slow = Game.met(game, facts)
            assert game.met(facts) is slow is info["success"]
            r = game.rules
            assert facts.installed == {r.names[q]: r.vname(q, x)
                                       for q, x in enumerate(env.state.installed)
                                       if x != ABSENT}
            seen[slow] += 1
            if terminated:
                break
    assert seen[True] >= 1 and seen[False] >= 100  # both verdicts exercised


def test_a_remembered_reading_is_the_reading() -> None:
    """Parsed or refused alike, short and long texts; a refused text is refused every time."""
    texts = ["pip install pkg1==1.2", "pip install pkg1>=1.0,<2.0", "  pip list ", "repo tree",
             "<action>python run.py</action>", "pip uninstall pkg3", "", "noop", "ls",
             "pip install a b", "pip install pkg1==x", "python", "pip install python==3.10",
             "pip install pkg1==1.2\n" + "x" * 400, "x" * 300]
    for text in texts * 2:
        try:
            expected: object = _read_command(text)
        except ActionError as exc:
            expected = ("refused", str(exc))
        try:
            got: object = parse_command(text)
        except ActionError as exc:
            got = ("refused", str(exc))
        assert got == expected, text


@pytest.mark.parametrize("length", [1, 2, 3, 5, 8, 13, 40])
def test_pick_draws_what_rng_choice_draws(length: int) -> None:
    """The random agent's repo draws: ``pick`` takes the element ``rng.choice`` takes and leaves
    the stream where it leaves it (2,000 seeds per length), so random repo actions are the ones
    released ladders and bounds were played with."""
    options = [f"pkg{i}" for i in range(length)]
    for seed in range(2000):
        ours, theirs = (np.random.Generator(np.random.PCG64(seed)) for _ in range(2))
        for _ in range(3):
            assert pick(options, ours) == str(theirs.choice(options))
        assert ours.random() == theirs.random()


def test_an_exact_install_read_once_acts_as_act() -> None:
    """``act_exact`` (an install's request read once per game) gives what ``act`` gives, for
    every ``pkg==V`` install from random environments (installed already or not) and for texts
    that are no such install."""
    task = read_suite("lite", envs=["repo"]).tasks["repo"][0]
    game = registry.make_env(task).game
    assert isinstance(game, RepoGameV2)
    r = game.rules
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([38, 1])))
    texts = [f"pip install {r.names[p]}=={r.vname(p, v)}"
             for p in range(r.n) for v in range(len(r.versions[p]))]
    texts += ["python run.py", "pip install python==3.10", f"pip install {r.names[0]}",
              f"pip install {r.names[0]}>=0.0", f"pip install {r.names[0]}==99.0",
              "pip install nosuch==1.0", f"pip uninstall {r.names[0]}", "pip install"]
    for _ in range(20):
        state = RepoV2(int(rng.integers(-1, len(r.pythons))),
                       tuple(int(rng.integers(-1, len(r.versions[q]))) for q in range(r.n)))
        for text in texts:
            assert game.act_exact(state, text) == game.act(state, text), text


def test_a_kept_update_is_the_update() -> None:
    """Every install plan's per-package update, kept per plan, equals the rule worked out, for
    every package it touches and every version (or none) that package may hold."""
    for task in read_suite("lite", envs=["repo"]).tasks["repo"][:4]:
        game = registry.make_env(task).game
        assert isinstance(game, RepoGameV2)
        r = game.rules
        for per in r.plans:
            for plan in per:
                for q in plan.touches():
                    for old in range(ABSENT, len(r.versions[q])):
                        assert plan.update(q, old) == plan._update(q, old)
                        assert plan.update(q, old) == plan._update(q, old)  # (now kept)
