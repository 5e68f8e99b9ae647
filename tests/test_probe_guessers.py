"""Probe answers cannot be guessed from a question's surface (issue 38): a guesser that picks
by a fixed rule (the longest option, the shortest, the k-th by length, the first
``ImportError``, the option naming the most packages; ``no`` for ``python run.py``) scores at
most chance plus 5 points."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from test_probes_envs import _probes_of

from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe, draw
from arena_gen.envs.repo.game_v4 import COMMAND_ERROR, COMMAND_OK, RUN_PY
from arena_gen.envs.repo.game_v5 import RepoGameV5

ROOT = Path(__file__).resolve().parents[1]
#: Per question its right answer and the probe; a guesser is a function of the probe only.
Asked = list[tuple[str, Probe]]
Guesser = Callable[[Probe], str]


def repo_v5_questions(enough: int) -> Asked:
    """Repo questions drawn at every state of each released Lite task's witness, played with
    the v5 game (a released-format v4 world plays with v5's messages), attempts 0, 1, ...
    until ``enough`` of them are ``command_error`` ones."""
    out: Asked = []
    for attempt in range(enough):
        for line in (ROOT / "suites" / "lite" / "repo.jsonl").read_text().splitlines():
            task: dict[str, Any] = json.loads(line)
            game = RepoGameV5(WorldView(task["world"], task["public"], task["budget"]))
            state = game.initial()
            visited = [state]
            for step, action in enumerate(task["certificate"]["witness"]):
                state = game.act(state, action)[0]
                visited.append(state)
                out += [(game.probe_answer(state, p), p)
                        for p in draw(game, state, visited, task["sha256"], attempt, step)]
            if sum(p.kind == COMMAND_ERROR for _, p in out) >= enough:
                return out
    return out


def by_key(key: Callable[[str], Any], rank: int) -> Guesser:
    """The guesser that picks the option of rank ``rank`` by ``key`` (ties: the first)."""
    def pick(probe: Probe) -> str:
        options = list(probe.subject["options"])
        order = sorted(range(len(options)), key=lambda i: (key(options[i]), i))
        assert probe.choices is not None
        return probe.choices[order[rank]]
    return pick


def first_with(word: str) -> Guesser:
    """The guesser that picks the first option holding ``word`` (else ``A``)."""
    def pick(probe: Probe) -> str:
        options = list(probe.subject["options"])
        return "ABCD"[next((i for i, o in enumerate(options) if word in o), 0)]
    return pick


def packages_named(option: str) -> int:
    """How many package names an option holds (the worlds name packages ``pkgN``)."""
    return len(re.findall(r"\bpkg\d+", option))


def score(guess: Guesser, asked: Asked) -> float:
    return float(np.mean([guess(p) == answer for answer, p in asked]))


def test_repo_options_and_commands_give_nothing_away() -> None:
    asked = repo_v5_questions(1000)
    errors = [(a, p) for a, p in asked if p.kind == COMMAND_ERROR]
    oks = [(a, p) for a, p in asked if p.kind == COMMAND_OK]
    assert len(errors) >= 1000 and len(oks) >= 1000
    chance = RepoGameV5.probe_chance[COMMAND_ERROR]
    guessers = {**{f"length rank {r}": by_key(len, r) for r in range(4)},  # 0 the shortest
                **{f"packages rank {r}": by_key(packages_named, r) for r in range(4)},
                "first ImportError": first_with("ImportError"),
                "first TypeError": first_with("TypeError")}
    for name, guess in guessers.items():
        assert score(guess, errors) <= chance + 0.05, name
    for _, p in errors:  # no ties: every length rank names one option
        assert len({len(o) for o in p.subject["options"]}) == 4, p.subject["options"]
    chance = RepoGameV5.probe_chance[COMMAND_OK]

    def no_for_run(p: Probe) -> str:
        return "no" if p.subject["command"] == RUN_PY else "yes"

    def yes_if_held(p: Probe) -> str:
        name = str(p.subject["command"]).split()[-1].split("==")[0]
        return "yes" if name in p.subject["installed"] else "no"

    for guess in (no_for_run, yes_if_held):
        assert score(guess, oks) <= chance + 0.05, guess.__name__


def _fixed_rule_scores(env: str, kind: str, key: Callable[[Any], Any]) -> dict[str, float]:
    """Per fixed rule (each letter, the option of each rank by ``key``: the smallest, the
    middle ones, the largest), its score on ``kind`` over 1,000 released Lite probes (the
    previews, trading v5 and energy v4, draw these worlds and ask these probes too)."""
    items = [(g.probe_answer(s, p), p) for g, s, p in _probes_of(env, 1000) if p.kind == kind]
    assert len(items) >= 400
    rules: dict[str, Guesser] = {f"constant {c}": (lambda p, c=c: c) for c in "ABCD"}
    rules |= {f"rank {r}": by_key(key, r) for r in range(4)}
    return {name: score(rule, items) for name, rule in rules.items()}


def test_trading_rank_options_give_nothing_away() -> None:
    scores = _fixed_rule_scores("trading", "move_rank", lambda order: tuple(order))
    assert max(scores.values()) <= 0.25 + 0.05, scores


def test_energy_efficiency_options_give_nothing_away() -> None:
    scores = _fixed_rule_scores("energy", "efficiency", float)  # largest, smallest, middle
    assert max(scores.values()) <= 0.25 + 0.05, scores


def test_trading_sign_is_not_the_news_sign() -> None:
    items = [(g.probe_answer(s, p), p) for g, s, p in _probes_of("trading", 1000)
             if p.kind == "move_sign"]
    assert len(items) >= 400

    def by_news(p: Probe, f: Callable[[list[float]], float], flip: bool) -> str:
        return "up" if (f(list(p.subject["news"])) > 0) != flip else "down"

    rules: dict[str, Guesser] = {"constant up": lambda p: "up", "constant down": lambda p: "down"}
    for flip in (False, True):
        rules[f"sum {flip}"] = lambda p, flip=flip: by_news(p, sum, flip)
        rules[f"largest {flip}"] = lambda p, flip=flip: by_news(p, lambda n: max(n, key=abs), flip)
    scores = {name: score(rule, items) for name, rule in rules.items()}
    assert max(scores.values()) <= 0.5 + 0.05, scores
