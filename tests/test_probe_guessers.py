"""Probe answers cannot be guessed from a question's surface (issue 38): a guesser that picks
by a fixed rule (the longest option, the shortest, the k-th by length, the first
``ImportError``, the option naming the most packages; ``no`` for ``python run.py``; for energy's
``dispatch_ok``, a threshold on any public number of the question, fitted or not, or a logistic
regression over all of them) scores at most chance plus 5 points."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_probes_envs import _probes_of

from arena_gen.core import registry
from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe, draw
from arena_gen.envs.energy.game_v1 import DISPATCH_OK, EFFICIENCY, GENERATORS, EnergyGame
from arena_gen.envs.energy.game_v5 import EnergyGameV5
from arena_gen.envs.energy.game_v6 import EnergyGameV6
from arena_gen.envs.energy.game_v8 import EnergyGameV8
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
    middle ones, the largest), its score on ``kind`` over 1,000 released Lite probes (trading v5
    and energy v5, as released)."""
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


# -- energy dispatch_ok: no public number of a question decides it (v5), as it did (v4) -------

#: Per question: the index of its Lite task (the halves a guesser is fitted on and scored on
#: are the even and the odd tasks), whether the answer is ``yes``, and its public numbers.
Scored = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]
#: Every 8th state of a witness is asked (many distinct days: efficiency truths vary).
ENERGY_STRIDE = 8
#: Every 20th state of a 1,000-day v6 Challenge witness.
V6_STRIDE = 20


def lite_energy_tasks() -> list[dict[str, Any]]:
    """The released Lite energy tasks as JSON objects."""
    lines = (ROOT / "suites" / "lite" / "energy.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def energy_questions(game: type[EnergyGame], kind: str, enough: int,
                     tasks: list[dict[str, Any]] | None = None, stride: int = ENERGY_STRIDE
                     ) -> list[tuple[int, str, Probe, EnergyGame]]:
    """``kind`` questions drawn by ``game`` at every ``stride``-th state of each task's
    witness (the released Lite energy tasks by default; task index, answer, probe, game),
    attempts 0, 1, ... until there are ``enough``."""
    out: list[tuple[int, str, Probe, EnergyGame]] = []
    for attempt in range(enough):
        for n, task in enumerate(tasks if tasks is not None else lite_energy_tasks()):
            play = game(WorldView(task["world"], task["public"], task["budget"]))
            state = play.initial()
            visited = [state]
            for step, action in enumerate(task["certificate"]["witness"]):
                if step % stride == 0:
                    out += [(n, play.probe_answer(state, p), p, play)
                            for p in draw(play, state, visited, task["sha256"], attempt, step)
                            if p.kind == kind]
                state = play.act(state, action)[0]
                visited.append(state)
        if len(out) >= enough:
            return out
    return out


def public_numbers(probe: Probe, game: EnergyGame) -> dict[str, float]:
    """What a ``dispatch_ok`` question states (and the task's public capacities, prices and
    targets), as numbers a guesser may weigh."""
    sub, r = probe.subject, game.rules
    cmd, prev, demand = sub["dispatch"], sub["prev"], float(sub["demand"])
    rated = sum(cmd[k] for k in GENERATORS)
    return {"rated sum / demand": rated / demand,
            "thermal share of rated - carbon target": cmd["thermal"] / rated - r.target_carbon,
            "wind share of rated": cmd["wind"] / rated,
            "solar share of rated": cmd["solar"] / rated,
            "thermal / demand": cmd["thermal"] / demand,
            "renewables / demand": (cmd["wind"] + cmd["solar"]) / demand,
            "ramp": sum(abs(cmd[k] - prev[k]) for k in cmd),
            "battery stored": float(sub["stored"]),
            "cost / budget": sum(cmd[k] * r.prices[k] for k in GENERATORS) / sub["budget"],
            "demand": demand, "budget": float(sub["budget"]),
            "day / horizon": sub["day"] / r.horizon}


#: Every site a v7/v8 Challenge world may have (absent ones rate 0).
SITES = tuple(f"{k}{i}" for k in ("wind", "solar") for i in (1, 2, 3))


def site_public_numbers(probe: Probe, game: EnergyGame) -> dict[str, float]:
    """:func:`public_numbers` of a v7/v8 question (the sites summed per kind), and each site's
    share of rated output."""
    sub, r = probe.subject, game.rules
    cmd, prev, demand = sub["dispatch"], sub["prev"], float(sub["demand"])
    gens = r.generators
    rated = sum(cmd[k] for k in gens)
    kind = {k: sum(cmd[s] for s in gens if s.startswith(k)) for k in ("wind", "solar")}
    return {"rated sum / demand": rated / demand,
            "thermal share of rated - carbon target": cmd["thermal"] / rated - r.target_carbon,
            "wind share of rated": kind["wind"] / rated,
            "solar share of rated": kind["solar"] / rated,
            **{f"{s} share of rated": cmd.get(s, 0.0) / rated for s in SITES},
            "thermal / demand": cmd["thermal"] / demand,
            "renewables / demand": (kind["wind"] + kind["solar"]) / demand,
            "ramp": sum(abs(cmd[k] - prev[k]) for k in cmd),
            "battery stored": float(sub["stored"]),
            "cost / budget": sum(cmd[k] * r.prices[k] for k in gens) / sub["budget"],
            "demand": demand, "budget": float(sub["budget"]),
            "day / horizon": sub["day"] / r.horizon}


def dispatch_scored(game: type[EnergyGame], enough: int,
                    tasks: list[dict[str, Any]] | None = None, stride: int = ENERGY_STRIDE,
                    numbers_of: Any = public_numbers) -> Scored:
    """At least ``enough`` ``dispatch_ok`` questions of ``game`` (on Lite worlds by default),
    scored."""
    asked = energy_questions(game, DISPATCH_OK, enough, tasks, stride)
    assert len(asked) >= enough
    numbers = [numbers_of(p, g) for _, _, p, g in asked]
    return (np.array([n for n, _, _, _ in asked]) % 2,
            np.array([a == "yes" for _, a, _, _ in asked]),
            {k: np.array([x[k] for x in numbers]) for k in numbers[0]})


def best_threshold(x: np.ndarray, yes: np.ndarray) -> tuple[float, bool]:
    """The threshold and side (``yes`` above it, or at or below it) that score best on these
    questions."""
    values = np.unique(x)
    cuts = np.concatenate([[values[0] - 1.0], (values[1:] + values[:-1]) / 2])
    above = (x[None, :] > cuts[:, None]) == yes[None, :]
    right = above.mean(axis=1)
    i = int(np.argmax(np.maximum(right, 1 - right)))
    return float(cuts[i]), bool(right[i] >= 1 - right[i])


def fitted_threshold_score(x: np.ndarray, yes: np.ndarray, half: np.ndarray) -> float:
    """A one-number guesser fitted on one half of the tasks and scored on the other, both
    ways, averaged."""
    scores = []
    for fit in (0, 1):
        cut, side = best_threshold(x[half == fit], yes[half == fit])
        test = half != fit
        scores.append(float(np.mean(((x[test] > cut) == side) == yes[test])))
    return float(np.mean(scores))


def logistic_fit(x: np.ndarray, yes: np.ndarray, steps: int = 30) -> np.ndarray:
    """Weights (intercept first) of a logistic regression, by Newton's method with a small
    ridge (numpy only)."""
    design = np.column_stack([np.ones(len(x)), x])
    w = np.zeros(design.shape[1])
    ridge = 1e-3 * np.eye(len(w))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-design @ w))
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + ridge
        w += np.linalg.solve(hessian, design.T @ (yes - p) - ridge @ w)
    return w


def logistic_score(numbers: dict[str, np.ndarray], yes: np.ndarray, half: np.ndarray) -> float:
    """A logistic regression over every public number (standardised), fitted on one half of
    the tasks and scored on the other, both ways, averaged."""
    x = np.column_stack(list(numbers.values()))
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-12)
    scores = []
    for fit in (0, 1):
        w = logistic_fit(x[half == fit], yes[half == fit].astype(float))
        test = half != fit
        guess = np.column_stack([np.ones(int(test.sum())), x[test]]) @ w > 0
        scores.append(float(np.mean(guess == yes[test])))
    return float(np.mean(scores))


def guesser_scores(scored: Scored) -> dict[str, float]:
    """Every guesser's share right: fixed rules, a fitted threshold per number, a logistic
    regression over all of them."""
    half, yes, numbers = scored
    out = {"constant yes": float(np.mean(yes)), "constant no": float(np.mean(~yes)),
           "yes when rated sum >= demand": float(np.mean((numbers["rated sum / demand"] >= 1)
                                                         == yes)),
           "yes when thermal share of rated < target": float(np.mean(
               (numbers["thermal share of rated - carbon target"] < 0) == yes)),
           "yes when the battery stores energy": float(np.mean(
               (numbers["battery stored"] > 0) == yes))}
    out |= {f"fitted {name}": fitted_threshold_score(x, yes, half)
            for name, x in numbers.items()}
    out["fitted logistic regression"] = logistic_score(numbers, yes, half)
    return out


def test_energy_dispatch_answers_follow_no_public_number() -> None:
    chance = EnergyGameV5.probe_chance[DISPATCH_OK]
    v4 = guesser_scores(dispatch_scored(EnergyGame, 1000))
    assert max(v4.values()) > chance + 0.05, v4  # the leak was real (rated sum, ramp, ...)
    v5 = guesser_scores(dispatch_scored(EnergyGameV5, 1000))
    assert max(v5.values()) <= chance + 0.05, v5
    assert v5["constant yes"] == v5["constant no"] == 0.5


def test_energy_v5_efficiency_options_give_nothing_away() -> None:
    """Each letter, each rank by value, and the option nearest a value fitted per source on
    one half of the tasks (the prior's centre) score at most chance plus 5 points."""
    scores = efficiency_guesser_scores(energy_questions(EnergyGameV5, EFFICIENCY, 1000))
    assert max(scores.values()) <= EnergyGameV5.probe_chance[EFFICIENCY] + 0.05, scores


def efficiency_guesser_scores(asked: list[tuple[int, str, Probe, EnergyGame]]
                              ) -> dict[str, float]:
    """Each efficiency guesser's share right: each letter, each rank by value, the option
    nearest a centre fitted per source on one half of the tasks and scored on the other."""
    assert len(asked) >= 1000
    letter = np.array(["ABCD".index(a) for _, a, _, _ in asked])
    options = np.array([p.subject["options"] for _, _, p, _ in asked], dtype=float)
    wind = np.array([p.subject["source"].startswith("wind") for _, _, p, _ in asked])
    half = np.array([n for n, _, _, _ in asked]) % 2
    scores = {f"constant {c}": float(np.mean(letter == i)) for i, c in enumerate("ABCD")}
    rank = np.argsort(np.argsort(options, axis=1), axis=1)[np.arange(len(letter)), letter]
    scores |= {f"rank {r}": float(np.mean(rank == r)) for r in range(4)}
    grid = np.round(np.arange(0.30, 1.40, 0.01), 2)

    def nearest(centre: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.abs(options[rows] - centre[:, None]).argmin(axis=1) == letter[rows]

    right = []
    for fit in (0, 1):
        centre = np.empty(len(letter))
        for source in (wind, ~wind):
            rows = source & (half == fit)
            centre[source] = max(grid, key=lambda c: float(np.mean(
                nearest(np.full(int(rows.sum()), c), rows))))
        right.append(float(np.mean(nearest(centre[half != fit], half != fit))))
    scores["nearest a fitted centre per source"] = float(np.mean(right))
    return scores


@cache
def v6_challenge_tasks(count: int = 6, version: int = 6) -> list[dict[str, Any]]:
    """The first ``count`` accepted energy Challenge candidates (v6, or ``version``) of a
    seed, with their verifier's witnesses (1,000 days each), as task-shaped objects."""
    spec = registry.get("energy", version)
    preset, verify = spec.load("presets")["challenge"], spec.load("verifier")
    out = []
    for index in range(count):
        for attempt in range(20):
            draft = spec.load("sampler")(preset, np.random.SeedSequence([42, version, index,
                                                                         attempt]))
            cert = verify(draft)
            if spec.acceptance()(draft, cert) is None:
                key = hashlib.sha256(json.dumps([index, attempt]).encode()).hexdigest()
                out.append({"world": draft.world, "public": draft.public,
                            "budget": draft.budget, "sha256": key,
                            "certificate": {"witness": cert.witness}})
                break
    return out


@pytest.mark.slow  # about 30 s: six 1,000-day witnesses, then the draws
def test_energy_v6_challenge_answers_follow_no_public_number() -> None:
    """On paper-scale Challenge worlds (questions about the regime in force only), every
    dispatch guesser (constants, thresholds, the logistic regression) and every efficiency
    guesser stays within chance plus 5 points."""
    tasks = v6_challenge_tasks()
    v6 = guesser_scores(dispatch_scored(EnergyGameV6, 1000, tasks, V6_STRIDE))
    assert max(v6.values()) <= EnergyGameV6.probe_chance[DISPATCH_OK] + 0.05, v6
    assert v6["constant yes"] == v6["constant no"] == 0.5
    eff = efficiency_guesser_scores(energy_questions(EnergyGameV6, EFFICIENCY, 1000, tasks,
                                                     V6_STRIDE))
    assert max(eff.values()) <= EnergyGameV6.probe_chance[EFFICIENCY] + 0.05, eff


@pytest.mark.slow  # about a minute: six 1,000-day v8 witnesses, then the draws
def test_energy_v8_challenge_answers_follow_no_public_number() -> None:
    """On v8 Challenge worlds (sites; questions about a window fixed around the probe day)
    every dispatch guesser (constants, thresholds on each number and each site's share, the
    logistic regression) and every efficiency guesser stays within chance plus 5 points."""
    tasks = v6_challenge_tasks(version=8)
    v8 = guesser_scores(dispatch_scored(EnergyGameV8, 1000, tasks, V6_STRIDE,
                                        site_public_numbers))
    assert max(v8.values()) <= EnergyGameV8.probe_chance[DISPATCH_OK] + 0.05, v8
    assert v8["constant yes"] == v8["constant no"] == 0.5
    eff = efficiency_guesser_scores(energy_questions(EnergyGameV8, EFFICIENCY, 1000, tasks,
                                                     V6_STRIDE))
    assert max(eff.values()) <= EnergyGameV8.probe_chance[EFFICIENCY] + 0.05, eff
