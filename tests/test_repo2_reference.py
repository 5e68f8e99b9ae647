"""Repo v2 against the released env: same states, same success, same message kinds.

Needs a local OdysseyArena checkout named by ARENA_GEN_ODYSSEY_CHECKOUT (a folder holding
RepoEnv/RepoEnv_v7.py); skipped otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from repo2_reference_util import RELEASED, random_command, reference_kind, reference_module

from arena_gen.core.game import WorldView
from arena_gen.envs.repo.game_v2 import ABSENT, RepoGameV2
from arena_gen.envs.repo.importer import importer
from arena_gen.envs.repo.verify_v2 import verify

REF = reference_module()
pytestmark = pytest.mark.skipif(
    REF is None or not RELEASED.is_file(),
    reason="set ARENA_GEN_ODYSSEY_CHECKOUT to an OdysseyArena checkout (RepoEnv/RepoEnv_v7.py) "
           "and keep ../shared/reference-data beside the repo")
STEPS = 150


def _released() -> list[dict[str, Any]]:
    return list(json.loads(RELEASED.read_text(encoding="utf-8")))


def _repair(world: dict[str, Any], witness: list[str], rng: np.random.Generator) -> list[str]:
    """A scripted repair: probe (run.py, a script, pip list), then the verified plan with
    re-runs and harmless detours (an unmatched range, pip show, an unknown package)."""
    out = ["python run.py", "pip install python==3.8", "python run.py", "repo tree"]
    for cmd in witness:
        if cmd.startswith("pip install pkg") and rng.random() < 0.3:
            name = cmd.split()[2].split("==")[0]
            out += [f"pip install {name}>=99.0", f"pip show {name}", "pip install nosuchpkg"]
        out += [cmd, str(rng.choice(list(world["entrypoints"])) if rng.random() < 0.5
                         else "python run.py")]
        if out[-1] != "python run.py":
            out[-1] = f"python {out[-1]}"
    return out + ["pip list", "python run.py"]


def _compare(world: dict[str, Any], commands: list[str]) -> tuple[int, bool]:
    """Play both envs; assert identical state, success and message kind after each command."""
    game = RepoGameV2(WorldView(world))
    r = game.rules
    env = REF.ComputerEnvSetupInductionEnvV7_5(world)
    env.reset()
    state, n = game.initial(), 0
    for cmd in commands:
        _, _, done, _ = env.step(cmd)
        state, event = game.act(state, cmd)
        n += 1
        mine = {r.names[q]: r.versions[q][x] for q, x in enumerate(state.installed)
                if x != ABSENT}
        py = None if state.python == ABSENT else r.pythons[state.python]
        assert mine == env.installed and py == env.python_version, (cmd, mine, env.installed)
        assert done == state.run_ok == game.done(state), cmd
        kind, script, check = reference_kind(env.last_message or "", world, cmd)
        assert (kind, script) == (event.kind, event.script), (cmd, env.last_message, event)
        assert check == event.check or (check == "consistency|hidden_rule" and
                                        event.check in ("consistency", "hidden_rule")), cmd
        if done:
            break
    return n, state.run_ok


def test_released_envs_agree_command_by_command() -> None:
    worlds = _released()
    drafts = importer(RELEASED)
    assert len(worlds) == 30
    total, solved, episodes = 0, 0, 0
    for i, (world, draft) in enumerate(zip(worlds, drafts, strict=True)):
        witness = verify(draft).witness
        for ep in range(3):
            rng = np.random.default_rng([i, ep])
            commands = _repair(world, witness, rng) if ep == 2 else \
                [random_command(world, rng) for _ in range(STEPS)]
            n, ok = _compare(world, commands)
            total, solved, episodes = total + n, solved + ok, episodes + 1
            if ep == 2:
                assert ok, i
    assert episodes == 90 and solved >= 30 and total > 9000


def test_imported_world_plays_like_the_released_task() -> None:
    """The normalised world (sorted keys, explicit package order) keeps every rule."""
    for world, draft in zip(_released(), importer(RELEASED), strict=True):
        canon = json.loads(json.dumps(draft.world, sort_keys=True))
        rng = np.random.default_rng(5)
        commands = [random_command(world, rng) for _ in range(60)]
        a, b = RepoGameV2(WorldView(world)), RepoGameV2(WorldView(canon))
        sa, sb = a.initial(), b.initial()
        for cmd in commands:
            sa, ea = a.act(sa, cmd)
            sb, eb = b.act(sb, cmd)
            assert (sa, ea) == (sb, eb), cmd


def test_witnesses_solve_the_released_env() -> None:
    minima = []
    for world, draft in zip(_released(), importer(RELEASED), strict=True):
        cert = verify(draft)
        env = REF.ComputerEnvSetupInductionEnvV7_5(world)
        env.reset()
        for k, cmd in enumerate(cert.witness):
            _, _, done, _ = env.step(cmd)
            assert done == (k == len(cert.witness) - 1), (cmd, env.last_message)
        assert env.success
        minima.append(cert.min_steps)
    assert min(minima) == 4 and max(minima) == 10


def _old_style(world: dict[str, Any], final: dict[str, str]) -> dict[str, Any]:
    """The world with every hidden rule in the old ``when_installed`` form, at the versions a
    verified plan leaves installed (so the translated rule fires where the plan ends)."""
    out = json.loads(json.dumps(world))
    for rule in out["hidden_rules"]:
        names = [q for q, _ in rule.pop("when")]
        rule["when_installed"] = {q: final[q] for q in names if q in final}
    return out


def test_old_style_hidden_rules_play_as_in_the_released_env(tmp_path: Any) -> None:
    """issue 25: ``when_installed`` was dropped (the rule never fired); it is translated now,
    and the imported world plays command by command as the released env plays the file."""
    worlds, witnesses = [], []
    for world, draft in list(zip(_released(), importer(RELEASED), strict=True))[:6]:
        witness = verify(draft).witness
        game = RepoGameV2(WorldView(draft.world))
        state = game.initial()
        for cmd in witness:
            state, _ = game.act(state, cmd)
        worlds.append(_old_style(world, game.facts(state).installed))
        witnesses.append(witness)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(worlds), encoding="utf-8")
    fired = 0
    for i, (raw, draft) in enumerate(zip(worlds, importer(path), strict=True)):
        assert all("when_installed" not in r for r in draft.world["hidden_rules"])
        assert [r["when"] for r in draft.world["hidden_rules"]] == [
            [[q, [["==", v]]] for q, v in r["when_installed"].items()]
            for r in raw["hidden_rules"]]
        rng = np.random.default_rng([i, 25])
        for commands in ([random_command(raw, rng) for _ in range(80)], witnesses[i]):
            env = REF.ComputerEnvSetupInductionEnvV7_5(raw)
            env.reset()
            game = RepoGameV2(WorldView(draft.world))
            state = game.initial()
            for cmd in commands:
                _, _, done, _ = env.step(cmd)
                state, event = game.act(state, cmd)
                assert done == state.run_ok, cmd
                fired += event.check == "hidden_rule"
                kind, _, _ = reference_kind(env.last_message or "", raw, cmd)
                assert kind == event.kind, (cmd, env.last_message, event)
                if done:
                    break
    assert fired >= 3  # the translated rules fire (they never did when dropped)


def test_empty_python_list_accepts_any_python(tmp_path: Any) -> None:
    """issue 25: an empty ``python_versions`` accepts any Python in the released env (it
    refused every one here); installs then check Requires-Python against the selected one."""
    world = json.loads(json.dumps(_released()[0]))
    world["python_versions"] = []
    path = tmp_path / "nopy.json"
    path.write_text(json.dumps([world]), encoding="utf-8")
    draft = importer(path)[0]
    cert = verify(draft)
    assert cert.solvable
    for cmds in (["pip install python==3.7", "pip list"],
                 ["pip install python==3.12", "python run.py"], cert.witness):
        env = REF.ComputerEnvSetupInductionEnvV7_5(world)
        env.reset()
        game = RepoGameV2(WorldView(draft.world))
        state = game.initial()
        for cmd in cmds:
            _, _, done, _ = env.step(cmd)
            state, event = game.act(state, cmd)
            r = game.rules
            py = None if state.python == ABSENT else r.pythons[state.python]
            assert py == env.python_version and done == state.run_ok, (cmd, env.last_message)
            assert reference_kind(env.last_message or "", world, cmd)[0] == event.kind, cmd
    assert state.run_ok
