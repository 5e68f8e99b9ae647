"""Probe answers cannot be guessed from an option's surface (issue 38): a guesser that picks
by a fixed rule (the longest option, the shortest, the k-th by length) scores at most chance
plus 5 points."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from arena_gen.core.game import WorldView
from arena_gen.core.probes import Probe, draw
from arena_gen.envs.repo.game_v4 import COMMAND_ERROR
from arena_gen.envs.repo.game_v5 import RepoGameV5

ROOT = Path(__file__).resolve().parents[1]
#: Per question a (right answer, probe) pair; a guesser is a function of the probe only.
Asked = list[tuple[str, Probe]]


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


def by_length(rank: int) -> Callable[[Probe], str]:
    """The guesser that picks the option of length rank ``rank`` (0: the shortest)."""
    def pick(probe: Probe) -> str:
        options = list(probe.subject["options"])
        order = sorted(range(len(options)), key=lambda i: (len(options[i]), i))
        assert probe.choices is not None
        return probe.choices[order[rank]]
    return pick


def test_repo_error_options_give_no_length_away() -> None:
    asked = repo_v5_questions(200)
    errors = [(a, p) for a, p in asked if p.kind == COMMAND_ERROR]
    assert len(asked) >= 1000 and len(errors) >= 200
    chance = RepoGameV5.probe_chance[COMMAND_ERROR]
    for rank in range(4):  # 0 shortest, 3 longest
        guess = by_length(rank)
        score = float(np.mean([guess(p) == a for a, p in errors]))
        assert score <= chance + 0.05, (rank, score)
    for _, p in errors:  # no ties: every length rank names one option
        assert len({len(o) for o in p.subject["options"]}) == 4, p.subject["options"]
