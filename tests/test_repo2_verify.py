"""Repo v2 verifier: the encoding agrees with game.step, minima are exact (BFS), imports verify."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena_gen.core.game import WorldView, play
from arena_gen.envs.repo.game_v2 import ABSENT, RepoGameV2, RepoV2
from arena_gen.envs.repo.importer import importer
from arena_gen.envs.repo.verify_v2 import (
    clause_holds,
    moves,
    newest_python,
    success_clauses,
    verify,
)
from arena_gen.suite.importer import detect_env, import_tasks

RELEASED = Path(__file__).resolve().parents[2] / "shared" / "reference-data" / "odyssey-arena" / \
    "repo" / "test_repo_lite_251217.json"
needs_data = pytest.mark.skipif(not RELEASED.is_file(), reason="../shared reference data absent")
#: Exact minima of the 30 released tasks (Python selection + installs + python run.py).
MINIMA = [5, 6, 7, 7, 10, 9, 7, 6, 6, 6, 6, 7, 5, 6, 6, 6, 7, 6, 10, 5, 4, 5, 6, 5, 5, 6, 8,
          4, 7, 9]


def _random_states(game: RepoGameV2, rng: np.random.Generator, n: int) -> list[RepoV2]:
    state, out = game.initial(), []
    for _ in range(n):
        state, _ = game.act(state, game.random_action(game.task.public, rng))
        out.append(RepoV2(state.python, state.installed))
    return out


@needs_data
def test_encoding_tables_agree_with_game_step() -> None:
    checked = 0
    for draft in importer(RELEASED)[:10]:
        game = RepoGameV2(draft)
        py = newest_python(game)
        ms = moves(game, py)
        rng = np.random.default_rng(3)
        for state in _random_states(game, rng, 40):
            state = RepoV2(py, state.installed)
            for m in ms:
                after, event = game.act(state, m.text)
                noop = m.version is not None and state.installed[m.package] == m.version
                blocked = noop or any(state.installed[q] == ABSENT for q in m.need_present) or \
                    any(state.installed[q] == o for q, o in m.forbid)
                predicted = list(state.installed)
                for q, row in m.tables.items():
                    predicted[q] = row[state.installed[q] + 1]
                if blocked:
                    assert after == state, m.text
                else:
                    assert after.installed == tuple(predicted), (m.text, event.feedback)
                checked += 1
    assert checked > 20_000


@needs_data
def test_success_clauses_are_run_ok() -> None:
    agree = successes = 0
    for draft in importer(RELEASED):
        game = RepoGameV2(draft)
        goal = success_clauses(game)
        cert = verify(draft)
        final = play(game, cert.witness).states[-1]
        states = _random_states(game, np.random.default_rng(9), 200) + [final]
        for s in states:
            want = game.run_ok(s.installed)
            assert all(clause_holds(c, s.installed) for c in goal) == want
            agree, successes = agree + 1, successes + want
    assert agree == 30 * 201 and successes >= 30


def _bfs_min(game: RepoGameV2, limit: int) -> int | None:
    """Fewest package commands to a passing state, by BFS over every install and uninstall."""
    py = newest_python(game)
    texts = [m.text for m in moves(game, py)]
    start = RepoV2(py, game.initial().installed)
    frontier, seen = [start], {start.installed}
    for depth in range(limit + 1):
        if any(game.run_ok(s.installed) for s in frontier):
            return depth
        nxt = []
        for s in frontier:
            for text in texts:
                after, _ = game.act(s, text)
                if after.installed not in seen:
                    seen.add(after.installed)
                    nxt.append(after)
        frontier = nxt
    return None


@needs_data
def test_bmc_minimum_matches_bfs_on_short_tasks() -> None:
    drafts = importer(RELEASED)
    short = [i for i, m in enumerate(MINIMA) if m <= 5]
    assert len(short) == 8
    for i in [20, 27, 0, 12]:  # minima 4, 4, 5, 5 (all eight agree; these keep it quick)
        game = RepoGameV2(drafts[i])
        assert _bfs_min(game, MINIMA[i] - 2) == MINIMA[i] - 2, i
        assert _bfs_min(game, MINIMA[i] - 3) is None


@needs_data
def test_import_gives_30_verified_tasks_with_exact_minima() -> None:
    assert detect_env(RELEASED) == "repo"
    tasks = import_tasks("repo", [RELEASED])
    assert [t.certificate.min_steps for t in tasks] == MINIMA
    for t in tasks:
        assert t.env_version == 2 and t.certificate.method == "sat-bmc"
        result = play(RepoGameV2(t), t.certificate.witness)
        assert result.success and result.steps == t.certificate.min_steps


def test_v1_world_converts_and_verifies() -> None:
    from arena_gen.envs.repo.sampler_v2 import PRESETS, accept, sample

    draft = sample(PRESETS["lite"], np.random.SeedSequence([7, 1, 4, 0, 0]))
    cert = verify(draft)
    if cert.solvable:
        assert play(RepoGameV2(WorldView(draft.world)), cert.witness).success
    assert accept(draft, cert) is None or not cert.solvable or cert.min_steps is not None
