"""Repo v5's rungs (issue 38): the model-free optimist and hill climb, and the v5 learner, on a
hand-made world small enough to enumerate."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
from test_repo_v4 import hand_world

from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.game import WorldView
from arena_gen.envs.repo.agents.climb import RUN, RepoClimbAgent, RepoOptimistAgent, State
from arena_gen.envs.repo.agents.heuristic_v5 import RepoV5HeuristicAgent
from arena_gen.envs.repo.common import ABSENT
from arena_gen.envs.repo.game_v2 import RepoV2
from arena_gen.envs.repo.game_v4 import RepoGameV4
from arena_gen.envs.repo.game_v5 import RepoGameV5
from arena_gen.envs.repo.sampler_v2 import public_view


def _setup(agent: Any, world: dict[str, Any], budget: int) -> RepoGameV5:
    game = RepoGameV5(WorldView(world, public_view(world, budget), budget))
    agent.reset(TaskView(task_id="repo-custom-0-0000", env="repo", budget=budget,
                         public=public_view(world, budget), env_version=5),
                "inductive", np.random.default_rng(0))
    return game


def visible(game: RepoGameV5, state: RepoV2) -> State:
    """The visible state of a game state, as the rungs key it."""
    r = game.rules
    python = "" if state.python == ABSENT else f"{r.pythons[state.python][0]}." \
        f"{r.pythons[state.python][1]}"
    return python, tuple(sorted((r.names[p], r.vname(p, v))
                                for p, v in enumerate(state.installed) if v != ABSENT))


def drive(agent: Any, world: dict[str, Any], turns: int, *, stop: bool = True,
          budget: int = 40) -> tuple[bool, list[tuple[State, str]], RepoV2]:
    """Play ``turns`` commands (past success unless ``stop``): success, each (visible state,
    command), the last game state."""
    game = _setup(agent, world, budget)
    state, obs, sent = game.initial(), "", []
    for i in range(turns):
        cmd = agent.act(obs + f"\nTurns left: {budget - i}")
        sent.append((visible(game, state), cmd))
        state, event = game.act(state, cmd)
        obs = event.feedback
        if game.done(state):
            if stop:
                return True, sent, state
            state = RepoV2(state.python, state.installed, False)
    return False, sent, state


def reachable(world: dict[str, Any], start: RepoV2) -> set[tuple[State, str]]:
    """Brute force: every (visible state, command of the optimist) reachable from ``start``
    through the optimist's own commands."""
    agent = RepoOptimistAgent()
    game = _setup(agent, world, 40)
    seen, out, queue = {start}, set(), deque([start])
    while queue:
        state = queue.popleft()
        key = visible(game, state)
        for cmd in agent.commands(key):
            out.add((key, cmd))
            nxt, _ = game.act(state, cmd)
            nxt = RepoV2(nxt.python, nxt.installed, False)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return out


def test_the_optimist_exhausts_what_it_can_reach_trying_each_command_once() -> None:
    """Ignoring success, the optimist repeats a (state, command) only when that state has
    nothing untried, and then walks a shortest remembered path to the nearest state that has;
    in the end it has tried every command of every state the brute force reaches from where it
    stands (its tracked state is the game's at every step)."""
    world = hand_world()
    agent = RepoOptimistAgent()
    _, sent, last = drive(agent, world, 200, stop=False)
    tried: set[tuple[State, str]] = set()
    edges: dict[State, dict[str, State]] = {}
    for i, (key, cmd) in enumerate(sent):
        if (key, cmd) in tried:
            assert all((key, c) in tried for c in agent.commands(key))
            dist = _nearest(edges, key, lambda k: any((k, c) not in tried
                                                      for c in agent.commands(k)))
            if dist is not None:  # the step goes one closer to the nearest such state
                nxt = edges[key][cmd]
                assert _nearest(edges, nxt, lambda k: any((k, c) not in tried
                                                          for c in agent.commands(k))) \
                    == dist - 1
        tried.add((key, cmd))
        if i + 1 < len(sent):
            edges.setdefault(key, {})[cmd] = sent[i + 1][0]
    todo = reachable(world, RepoV2(last.python, last.installed, False))
    assert len(todo) >= 20 and todo <= tried


def _nearest(edges: dict[State, dict[str, State]], start: State, goal: Any) -> int | None:
    """Breadth-first distance over remembered edges to a state meeting ``goal``."""
    queue, dist = deque([start]), {start: 0}
    while queue:
        node = queue.popleft()
        if goal(node):
            return dist[node]
        for nxt in edges.get(node, {}).values():
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return None


def test_the_optimist_solves_the_tiny_world_and_is_deterministic() -> None:
    first = drive(RepoOptimistAgent(), hand_world(), 40)
    assert first == drive(RepoOptimistAgent(), hand_world(), 40)
    assert first[0] and first[1][0][1] == RUN


def test_the_climb_stops_at_a_local_optimum_after_trying_each_neighbour_once() -> None:
    """On the tiny world the one working pair (1.0 / 1.0) is two changes away from where the
    climb settles (2.0 / 2.0: the hidden rule's message, new, so kept); brute force: no single
    change of that configuration passes. The climb tries each of those changes exactly once,
    the package the failure names first, then starts the round over; deterministic."""
    world = hand_world()
    ok, sent, _ = drive(RepoClimbAgent(), world, 30)
    assert not ok and (ok, sent) == drive(RepoClimbAgent(), world, 30)[:2]
    game = RepoGameV5(WorldView(world))
    kept = (1, 1)  # pkg0 2.0, pkg1 2.0 (version indices)
    neighbours = [(p, v) for p in range(2) for v in range(len(game.rules.versions[p]))
                  if v != kept[p]]
    for p, v in neighbours:
        installed = tuple(v if q == p else kept[q] for q in range(2))
        assert game.script_failure(installed, "core/smoke.py") is not None
    cmds = [cmd for _, cmd in sent]
    start = cmds.index("pip install pkg1==2.0") + 1
    trials = [c for c in cmds[start:] if c.startswith("pip install") and
              sent[cmds.index(c, start)][0] == ("3.11", (("pkg0", "2.0"), ("pkg1", "2.0")))]
    assert trials[:3] == ["pip install pkg1==3.0", "pip install pkg1==1.0",
                          "pip install pkg0==1.0"]
    assert len(neighbours) == 3 and trials[3] == trials[0]  # the next round


def test_v5_ladder_rungs() -> None:
    spec = registry.get("repo", 5)
    assert set(spec.model_free) == {"climb", "optimist", "named_loop"}
    assert spec.load("heuristic") is RepoV5HeuristicAgent
    v4 = registry.get("repo", 4)  # v4 stays registered with its own game and rungs
    assert v4.load("game") is RepoGameV4 and set(v4.model_free) == {"sweep", "named_loop"}


def test_the_v5_learner_never_repeats_an_install_from_a_state() -> None:
    ok, sent, _ = drive(RepoV5HeuristicAgent(), hand_world(), 40)
    assert ok
    pairs = [(key, cmd) for key, cmd in sent if cmd.startswith("pip install pkg")]
    assert len(pairs) == len(set(pairs))


def test_the_climb_with_pairs_leaves_the_local_optimum() -> None:
    """With ``pairs`` the climb tries two-version changes once every one-version change of
    the kept configuration failed, and reaches the tiny world's working pair."""
    ok, sent, _ = drive(RepoClimbAgent(pairs=True), hand_world(), 60)
    assert ok and not drive(RepoClimbAgent(), hand_world(), 60)[0]
    assert ("3.11", (("pkg0", "1.0"), ("pkg1", "1.0"))) in {key for key, _ in sent[-2:]}
