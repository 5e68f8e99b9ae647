"""Repo probe draws' caches and fast paths (issue 38's probe cost) give what the uncached rules
give: every outcome a draw keeps equals ``act``'s, an equality request's pick equals the range
match, a kept environment text equals the one built afresh, on many random states; a learner's
closest error option is the option of highest ratio."""

from __future__ import annotations

import functools
from difflib import SequenceMatcher

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.core import registry
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.repo import probes_v5
from arena_gen.envs.repo.agents.probe_replies import _closest
from arena_gen.envs.repo.game_v2 import RepoEvent, RepoGameV2, RepoV2
from arena_gen.envs.repo.game_v4 import _WORKED, RepoGameV4
from arena_gen.envs.repo.game_v5 import RepoGameV5


@functools.cache
def games() -> list[RepoGameV2]:
    """Three Lite and two moderate Challenge repo tasks, each as the v5 game and as the v4
    game."""
    out: list[RepoGameV2] = []
    for suite, n in (("lite", 3), ("challenge-moderate", 2)):
        for task in read_suite(suite, envs=["repo"]).tasks["repo"][:n]:
            game = registry.make_game(task)
            assert isinstance(game, RepoGameV5)
            out += [game, RepoGameV4(game.task)]
    return out


def random_states(game: RepoGameV2, rng: np.random.Generator, n: int) -> list[RepoV2]:
    r = game.rules
    return [RepoV2(int(rng.integers(-1, len(r.pythons))),
                   tuple(int(rng.integers(-1, len(r.versions[q]))) for q in range(r.n)))
            for _ in range(n)]


def texts(game: RepoGameV2) -> list[str]:
    r = game.rules
    out = [f"pip install {r.names[p]}=={r.vname(p, v)}"
           for p in range(r.n) for v in range(len(r.versions[p]))]
    return out + ["python run.py", "pip install python==3.10", f"pip install {r.names[0]}",
                  f"pip install {r.names[0]}>=0.0", f"pip install {r.names[0]}==99.0",
                  f"pip install {r.names[1]}==0.0", f"pip install {r.names[1]}>=1.0,<2.0",
                  "pip install nosuch==1.0", f"pip uninstall {r.names[0]}", "pip install", "ls"]


def reference(game: RepoGameV2, state: RepoV2, text: str) -> tuple[RepoV2, bool, str]:
    """What a probe's outcome is by definition: ``act``, its event's kind and one-line text."""
    after, event = game.act(state, text)
    return after, isinstance(event, RepoEvent) and event.kind in _WORKED, " ".join(
        event.feedback.split())


@pytest.mark.parametrize("which", range(10))
def test_kept_outcomes_are_the_rules(which: int) -> None:
    game = games()[which]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([38, 7, which])))
    states = random_states(game, rng, 15) + [game.initial()]
    cache: probes_v5.Outcomes = {}
    worked = failed = 0
    for _ in range(2):  # first stepped, then read back from the cache
        for state in states:
            for text in texts(game):
                got = probes_v5.stepped(game, state, text, cache)
                assert got == reference(game, state, text), text
                worked += got[1]
                failed += not got[1]
    assert worked > 100 and failed > 100  # both outcomes exercised


def test_an_equality_pick_is_the_range_match() -> None:
    """The pick of ``NAME==V`` read without a scan equals the newest version the general
    request match gives (None when no version matches)."""
    for game in games()[::2]:
        r = game.rules
        for p in range(r.n):
            wanted = {*r.versions[p], (0, 0), (99, 0), (r.versions[p][0][0], 99)}
            for version in sorted(wanted):
                text = f"pip install {r.names[p]}=={version[0]}.{version[1]}"
                hits = game._matching(p, [("==", version)])[1]
                expected = (p, max(hits, key=lambda i: r.versions[p][i])) if hits else None
                assert game._pick(text) == game.exact_pick(text) == expected, text


def test_a_kept_environment_text_is_built_afresh() -> None:
    for which, game in enumerate(games()):
        assert isinstance(game, RepoGameV4)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([38, 8, which])))
        for state in random_states(game, rng, 40) * 2:
            head, _, *packages = (line.strip() for line in game.pip_list(state).splitlines())
            assert game.environment(state) == f"{head}; packages: {', '.join(packages)}"


def closest_by_definition(options: list[str], text: str) -> int:
    """The option of highest difflib ratio to ``text``, the first on a tie."""
    scores = [SequenceMatcher(None, option, text, autojunk=False).ratio() for option in options]
    return scores.index(max(scores))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abc ERO:'", max_size=30), min_size=1, max_size=5),
       st.text(alphabet="abc ERO:'", max_size=30))
def test_the_closest_option_is_the_highest_ratio(options: list[str], text: str) -> None:
    assert _closest(options, text) == closest_by_definition(options, text)


def test_the_closest_released_error_options() -> None:
    """On the error options of drawn questions (long texts that share most words)."""
    game = games()[0]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([38, 9])))
    checked = 0
    for state in random_states(game, rng, 40):
        for probe in game.probes(state, [state], rng, 8):
            options = list(probe.subject.get("options", []))
            for option in options:
                shifted = option.replace("ERROR", "Error")[::-1][:60][::-1]
                assert _closest(options, shifted) == closest_by_definition(options, shifted)
                checked += 1
    assert checked >= 20
