"""Repo probe draws' fast paths (issue 38's probe cost) answer what stepping the game answers:
an install's failure key is None exactly when it works, equal keys print equal messages, an
install meets no more keys than its bound, ``works`` and ``after`` are ``stepped``'s items, a
draw's shortcut outcomes (an uninstall never works; an install fails alike where the move
changed nothing it reads) are the stepped ones, and a script's rule (symbol requirements looked
up, not scanned) is the released scan, over many random states of Lite and Challenge worlds,
v4 and v5 games alike."""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_gen.envs.repo import install_index, probes_v5
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoGameV2, RepoV2, RunFailure
from arena_gen.envs.repo.game_v4 import IMPORTER, RepoGameV4
from tests.test_repo_probe_caches import games, random_states, reference, texts


def _installs(game: RepoGameV2) -> list[tuple[str, tuple[int, int]]]:
    """Every exact install text of the world with the release it picks."""
    out = []
    for text in texts(game):
        pick = game.exact_pick(text)
        if pick is not None:
            out.append((text, pick))
    return out


@settings(max_examples=25, deadline=None)
@given(which=st.integers(0, 9), seed=st.integers(0, 2**32 - 1))
def test_a_failure_key_is_the_install_rule(which: int, seed: int) -> None:
    """None exactly when the install works; each key always prints one message."""
    game = games()[which]
    printed: dict[object, str] = {}
    for state in random_states(game, np.random.default_rng(seed), 30):
        for text, (p, v) in _installs(game):
            if state.installed[p] == v:
                continue
            after, ok, line = reference(game, state, text)
            why = install_index.failure(game.rules, state, p, v)
            assert (why is None) == ok, (text, state)
            if why is not None:
                assert after == state
                assert printed.setdefault((p, v, why), line) == line, (text, state, why)


@settings(max_examples=25, deadline=None)
@given(which=st.integers(0, 9), seed=st.integers(0, 2**32 - 1))
def test_works_and_after_are_the_stepped_items(which: int, seed: int) -> None:
    """Asked first, and asked after the whole outcome was stepped (read from the table)."""
    game = games()[which]
    assert isinstance(game, RepoGameV4)
    states = random_states(game, np.random.default_rng(seed), 12)
    for first in (True, False):
        tried = probes_v5.Tried(game, {})
        for state in states:
            for text in texts(game):
                want = reference(game, state, text)
                if not first:
                    assert tried.stepped(state, text) == want
                assert tried.works(state, text) == want[1], (text, state)
                if want[1] and text.startswith("pip install"):
                    assert tried.after(state, text) == want[0], (text, state)
                assert tried.stepped(state, text) == want


@settings(max_examples=20, deadline=None)
@given(which=st.integers(0, 9), seed=st.integers(0, 2**32 - 1))
def test_a_draws_outcomes_are_the_stepped_ones(which: int, seed: int) -> None:
    """Every (environment a step away, command) a draw may look at: None when the move fails,
    else what stepping the command from the stepped environment gives (its message only when
    it fails)."""
    game = games()[which]
    assert isinstance(game, RepoGameV4)
    for state in random_states(game, np.random.default_rng(seed), 3):
        steps = probes_v5._Steps(game, state, probes_v5.Tried(game, {}))
        for k in range(len(steps)):
            env = state if k == 0 else steps.env(k)
            if k:
                after, ok, _ = reference(game, state, steps.moves[k - 1])
                assert env == (after if ok else None), steps.moves[k - 1]
            for command in steps.commands:
                got = steps.outcome(k, command)
                if env is None:
                    assert got is None
                    continue
                _, ok, line = reference(game, env, command)
                assert got == (ok, "" if ok else line), (k, command)


def test_states_a_visit_reaches() -> None:
    """The random states above include the empty environment and a Python-only one (the
    states an episode starts from)."""
    game = games()[0]
    r = game.rules
    for state in (RepoV2(-1, (-1,) * r.n), RepoV2(0, (-1,) * r.n)):
        for text, (p, v) in _installs(game):
            _, ok, _ = reference(game, state, text)
            assert (install_index.failure(r, state, p, v) is None) == ok


@settings(max_examples=25, deadline=None)
@given(which=st.integers(0, 9), seed=st.integers(0, 2**32 - 1))
def test_an_install_has_no_more_reasons_than_its_bound(which: int, seed: int) -> None:
    """Over many states sharing a Python, the failure keys an install meets are at most
    :func:`~.install_index.reasons` (a draw skips installs whose bound is under four)."""
    game = games()[which]
    r = game.rules
    rng = np.random.default_rng(seed)
    python = int(rng.integers(-1, len(r.pythons)))
    states = [RepoV2(python, s.installed) for s in random_states(game, rng, 200)]
    for _, (p, v) in _installs(game):
        met = {install_index.failure(r, s, p, v) for s in states if s.installed[p] != v}
        assert len(met - {None}) <= install_index.reasons(r, p, v), (p, v, met)


def released_script_failure(game: RepoGameV4, installed: tuple[int, ...], path: str
                            ) -> RunFailure | None:
    """v4's run-time rule as released: every symbol requirement scanned in the rules' order
    (the game now looks up the touched packages' installed versions only)."""
    r = game.rules
    touched = r.touched[path]
    for kind, anchor, members, text in r.consistency:
        if anchor not in touched and not any(m in touched for m in members):
            continue
        a = installed[anchor]
        if a == ABSENT:
            continue
        av = r.versions[anchor][a]
        for m in members:
            if installed[m] == ABSENT:
                continue
            mv = r.versions[m][installed[m]]
            if (kind == "same_major_with_anchor" and mv[0] != av[0]) or \
                    (kind == "same_minor_with_anchor" and mv != av):
                return RunFailure("consistency", text.replace(IMPORTER, r.names[m]))
    for call in r.calls[path]:
        fail = game.call_failure_v4(installed, call, path)
        if fail is not None:
            return fail
    for (caller, cv), reqs in r.needs.items():
        if caller not in touched or installed[caller] != cv:
            continue
        for call in reqs:
            fail = game.call_failure_v4(installed, call, r.names[caller])
            if fail is not None:
                return fail
    for when, scopes, text in r.hidden:
        if path not in scopes and "run.py" not in scopes and "*" not in scopes:
            continue
        if all(installed[q] != ABSENT and installed[q] in allowed for q, allowed in when):
            return RunFailure("hidden_rule", text.replace(IMPORTER, path))
    return None


@settings(max_examples=25, deadline=None)
@given(which=st.integers(0, 9), seed=st.integers(0, 2**32 - 1))
def test_a_scripts_rule_is_the_released_scan(which: int, seed: int) -> None:
    """The run-time rule of every script equals the released scan on many states (states an
    episode reaches included: nothing and a Python only)."""
    game = games()[which]
    assert isinstance(game, RepoGameV4)
    r = game.rules
    states = [RepoV2(0, (ABSENT,) * r.n),
              *random_states(game, np.random.default_rng(seed), 60)]
    for state in states:
        for path in r.script_paths:
            assert RepoGameV4.script_failure(game, state.installed, path) == \
                released_script_failure(game, state.installed, path), (path, state)


def test_a_plan_pickles_as_its_fields() -> None:
    """What a plan worked out (kept updates) is not pickled: a plan asked much pickles as a
    fresh one does, and unpickled it answers alike."""
    game = games()[0]
    r = game.rules
    for p in range(r.n):
        for plan in r.plans[p]:
            before = pickle.dumps(plan)
            asked = [plan.update(q, old) for q in range(r.n)
                     for old in range(ABSENT, len(r.versions[q]))]
            assert pickle.dumps(plan) == before
            copy = pickle.loads(before)
            assert copy == plan
            assert [copy.update(q, old) for q in range(r.n)
                    for old in range(ABSENT, len(r.versions[q]))] == asked
