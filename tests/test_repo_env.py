"""Repo env semantics: install priorities, side effects, rollback, conflicts, run order."""

from __future__ import annotations

import json

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from test_repo_worlds import hand_world, small_world, task_of

from arena_gen.core import registry
from arena_gen.core.game_env import GameEnv
from arena_gen.envs.repo.game_v1 import Repo


def play(env: GameEnv, *actions: str) -> str:
    feedback = ""
    for action in actions:
        _, _, _, _, info = env.step(action)
        feedback = info["feedback"]
    return feedback


def fresh() -> GameEnv:
    env = registry.make_env(task_of(hand_world()))
    env.reset()
    return env


def installed(env: GameEnv) -> dict[str, str]:
    return env.game.facts(env.state).installed


def test_low_priority_leaves_dependencies_alone() -> None:
    env = fresh()
    assert play(env, "pip install pkgA==1.0") == "Successfully installed pkgA-1.0."
    assert installed(env) == {"pkgA": "1.0"}


def test_medium_needs_dependencies_first_and_moves_out_of_range() -> None:
    env = fresh()
    out = play(env, "pip install pkgB==1.0")
    assert "requires pkgA to be installed first" in out and "nothing was changed" in out
    assert installed(env) == {}
    play(env, "pip install python==3.11", "pip install pkgA==1.1")
    out = play(env, "pip install pkgB==1.0")
    assert out == "Successfully installed pkgB-1.0."  # 1.1 is in >=1.0,<2.0: kept
    env = fresh()
    play(env, "pip install pkgA==2.0")
    out = play(env, "pip install pkgB==1.0")  # pkgA 2.0 out of range -> 1.1 (highest in range)
    assert "pkgA 2.0 -> 1.1" in out
    assert installed(env) == {"pkgA": "1.1", "pkgB": "1.0"}


def test_high_sets_deps_then_side_effects_in_order() -> None:
    env = fresh()
    out = play(env, "pip install pkgC==0.1")
    # No Python is selected, yet pkgA 1.1 (Requires-Python >=3.10) is auto-set: auto-set
    # packages skip their own checks. force_low then sets pkgB to the lowest in range.
    assert installed(env) == {"pkgA": "1.1", "pkgB": "1.0", "pkgC": "0.1"}
    assert "pkgA absent -> 1.1" in out and "pkgB absent -> 1.0" in out


def test_requires_python_and_exact_python() -> None:
    env = fresh()
    assert "no Python is selected" in play(env, "pip install pkgA==1.1")
    assert "requires Python >=3.10, but the environment has Python 3.9" in play(
        env, "pip install python==3.9", "pip install pkgA==1.1")
    assert "not available" in play(env, "pip install python==3.7")
    assert env.game.facts(env.state).python == "3.9"


def test_conflicts_both_directions_roll_back() -> None:
    env = fresh()
    play(env, "pip install pkgA==1.0", "pip install pkgB==1.0")
    before = env.state
    out = play(env, "pip install pkgA==2.0")  # declared by pkgA 2.0 against pkgB 1.0
    assert "conflicts with pkgB 1.0" in out and env.state == before
    env = fresh()
    play(env, "pip install python==3.10", "pip install pkgA==1.1", "pip install pkgB==1.1")
    before = env.state
    out = play(env, "pip install pkgA==1.0")  # declared by installed pkgB 1.1 against pkgA 1.0
    assert "declared by pkgB" in out and env.state == before


def test_high_install_error_rolls_back_its_side_effects() -> None:
    env = fresh()
    play(env, "pip install pkgA==1.0", "pip install pkgB==1.0")
    before = env.state
    out = play(env, "pip install pkgC==0.2")  # sets pkgA 2.0, which conflicts with pkgB 1.0?
    assert "conflicts" not in out or env.state == before


def test_run_order_and_messages() -> None:
    env = fresh()
    assert "no Python interpreter selected" in play(env, "python run.py")
    out = play(env, "pip install python==3.10", "python run.py")
    assert "core/smoke.py failed" in out and "No module named 'pkgA'" in out
    out = play(env, "pip install pkgA==2.0", "python core/smoke.py")
    assert "ImportError: cannot import name 'load' from 'pkgA.core'" in out
    play(env, "pip install pkgA==1.1", "pip install pkgB==1.0", "pip install pkgC==0.2")
    assert installed(env) == {"pkgA": "2.0", "pkgB": "1.1", "pkgC": "0.2"}
    out = play(env, "python run.py")  # pkgA 2.0 lacks core.load: the first script fails
    assert "core/smoke.py failed" in out and "ImportError" in out
    play(env, "pip install pkgA==1.1")
    out = play(env, "python run.py")
    # pkgC 0.2 requires pkgA>=2.0: a pip-check error in the script importing pkgC.
    assert "model/smoke_model.py failed" in out
    assert "pkgC 0.2 has requirement pkgA>=2.0, but you have pkgA 1.1" in out
    play(env, "pip install pkgB==1.0")
    out = play(env, "python run.py")  # hidden rule (scope *) now fires in the first script
    assert "core/smoke.py failed:\nRuntimeError: pkgB and pkgC disagree" in out
    play(env, "pip install pkgC==0.1", "pip install pkgB==1.1")
    obs, reward, terminated, _, info = env.step("python run.py")
    assert terminated and reward == 1.0 and info["run_ok"] and all(info["scripts"].values())


def test_hidden_rule_message_hides_ranges() -> None:
    env = fresh()
    play(env, "pip install python==3.10", "pip install pkgA==2.0", "pip install pkgC==0.2",
         "pip install pkgB==1.0")
    env.state = Repo((2, 1, 0, 1))  # python 3.10, A 1.1, B 1.0, C 0.2
    out = play(env, "python run.py")
    assert out.endswith("RuntimeError: pkgB and pkgC disagree") or "requirement" in out
    for text in ("<1.1", ">0.1", "solution"):
        assert text not in out


def test_messages_never_name_solution_versions_unprompted() -> None:
    env = fresh()
    out = play(env, "pip install python==3.10", "python run.py")
    assert "1.1" not in out and "0.1" not in out


def test_uninstall_show_list_tree() -> None:
    env = fresh()
    assert "not installed" in play(env, "pip uninstall pkgA")
    play(env, "pip install pkgA==1.0")
    assert "Requires-Python: (any)" in play(env, "pip show pkgA")
    assert "pkgA       1.0" in play(env, "pip list")
    assert play(env, "pip uninstall pkgA") == "Successfully uninstalled pkgA-1.0"
    assert "core/smoke.py" in play(env, "repo tree")
    assert "unknown package 'pkgZ'" in play(env, "pip install pkgZ")


def test_script_command_never_ends_the_episode() -> None:
    env = fresh()
    play(env, "pip install python==3.10", "pip install pkgA==1.1", "pip install pkgC==0.1")
    assert env.state == Repo((2, 1, 0, 0))  # force_low moved pkgB to 1.0
    play(env, "pip install pkgB==1.1")
    _, reward, terminated, _, info = env.step("python core/smoke.py")
    assert not terminated and info["feedback"] == "core/smoke.py: OK" and not info["run_ok"]


COMMANDS = st.one_of(
    st.sampled_from(["pip list", "python run.py", "repo tree", "pip install python==3.9",
                     "pip install python==3.11", "python core/smoke.py", "pip show pkg1"]),
    st.builds(lambda p, v: f"pip install pkg{p}=={v}", st.integers(0, 5),
              st.sampled_from(["0.0", "0.1", "1.0", "1.1", "1.2", "2.0", "9.9"])),
    st.builds(lambda p, s: f"pip install 'pkg{p}{s}'", st.integers(0, 5),
              st.sampled_from([">=1.0", "<1.1", ">=0.1,<2.0", "!=1.0", ">5.0"])),
    st.builds(lambda p: f"pip uninstall pkg{p}", st.integers(0, 6)),
    st.text(max_size=40),
)


class RepoMachine(RuleBasedStateMachine):
    """Random command sequences on a sampled world: failures never change state."""

    def __init__(self) -> None:
        super().__init__()
        self.env = registry.make_env(task_of(small_world(3, 6, 3), budget=10_000))
        self.env.reset()

    @rule(command=COMMANDS)
    def step(self, command: str) -> None:
        before = self.env.state
        obs, reward, terminated, truncated, info = self.env.step(command)
        assert isinstance(obs, str) and info["feedback"]
        json.dumps(info)
        if not info["valid"] or info["feedback"].startswith(("ERROR", "WARNING",
                                                               "Requirement already")):
            assert self.env.state == before
        if terminated:
            assert self.env.game.rules.ok(self.env.state.config)
            self.env.reset()

    @invariant()
    def pip_list_reflects_state(self) -> None:
        game = self.env.game
        listing = game.pip_list(self.env.state.config).splitlines()
        rules, state = game.rules, self.env.state.config
        py = "none" if state[0] < 0 else rules.pythons[state[0]]
        assert listing[0] == f"Python {py}"
        shown = {line.split()[0]: line.split()[1] for line in listing[2:]}
        assert shown == {rules.names[q]: rules.vname(q, state[1 + q]) for q in range(rules.n)
                         if state[1 + q] >= 0}
        assert shown == installed(self.env)


TestRepoMachine = RepoMachine.TestCase
TestRepoMachine.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
