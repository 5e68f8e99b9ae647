"""The energy text env's step speed-ups change no byte: every step's observation, reward,
terminated, truncated and ``info`` of witness, invalid-text and random plays of released energy
tasks hash to the values recorded with the code before them (commit 56f7138), and an ``info``
handed out is the caller's own (changing it changes no later step)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena_gen.core import registry
from arena_gen.core.suite_io import read_suite
from arena_gen.envs.energy.game_v1 import EnergyFacts

SUITES = Path(__file__).resolve().parent.parent / "suites"
#: Texts the parser rejects (each a different reason) or reads oddly but validly.
ODD = ["", "thermal 100", "{thermal: 1}", "[1, 2]", '{"Thermal": 1}', '{"wind": true}',
       '{"solar": NaN}', '{"battery": 1e999}', "\ufeff{}", '{"wind": "3"}', "{}",
       '  {"thermal": 5, "thermal": 7}  ', '{"battery": -1000, "solar": 1e308}']
#: sha256 of every step of :func:`play` per suite folder, recorded at commit 56f7138 (the
#: moderate Challenge's when it was ``suites/challenge``).
PINNED = {
    "odyssey-lite": "d6d8f48f1d42117b49eeb22640de6a3d0a2dd5a84df6fbea8513afe309766904",
    "lite": "00713c3644cbdd41597f4138370f9a4649c444dd8c13e279b3f4f8f79c87fd27",
    "challenge-moderate": "410b50e75a1cba9ff6ebc16ffe76e5e6f43e84c8a8dd3d056f84f0b9f18ead16",
}


def _step_bytes(out: tuple[Any, ...]) -> bytes:
    """One step's result as bytes: JSON keeps key order and tells 1 from 1.0 and from true."""
    obs, reward, terminated, truncated, info = out
    return json.dumps([obs, reward, terminated, truncated, info]).encode() + b"\n"


def play(suite: str, tasks: int = 4, cap: int = 160) -> str:
    """Hash every step of a witness play with odd texts slipped in and of a random play, per
    task, each run a few steps past its end."""
    digest = hashlib.sha256()
    read = read_suite(SUITES / suite, envs=["energy"])
    name = read.manifest["suite"]  # the moderate Challenge's says challenge, as when recorded
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([27, 5, len(name)])))
    for task in read.tasks["energy"][:tasks]:
        for plan in ("witness", "random"):
            env = registry.make_env(task)
            obs, info = env.reset()
            digest.update(json.dumps([obs, info]).encode())
            texts = list(task.certificate.witness) if plan == "witness" else []
            turn = 0
            for _ in range(cap):
                if rng.random() < 0.15:
                    text = ODD[int(rng.integers(len(ODD)))]
                elif turn < len(texts):
                    text, turn = texts[turn], turn + 1
                else:
                    text = env.sample_action(rng)
                out = env.step(text)
                digest.update(_step_bytes(out))
                if out[2] or out[3]:
                    for _ in range(2):
                        digest.update(_step_bytes(env.step(text)))
                    break
    return digest.hexdigest()


@pytest.mark.parametrize("suite", list(PINNED))
def test_energy_steps_match_recorded(suite: str) -> None:
    """Every step of the plays is byte-identical to the recorded one."""
    assert play(suite) == PINNED[suite]


def test_info_is_the_callers_own() -> None:
    """Changing a returned ``info`` (nested dicts included) leaves later steps unchanged."""
    task = read_suite(SUITES / "odyssey-lite", envs=["energy"]).tasks["energy"][0]
    witness = list(task.certificate.witness)[:6]
    clean, dirty = registry.make_env(task), registry.make_env(task)
    clean.reset()
    dirty.reset()
    for text in [witness[0], "x", witness[1], witness[2], "{}", witness[3]]:
        a, b = clean.step(text), dirty.step(text)
        assert json.dumps(a) == json.dumps(b)
        info = b[4]
        if info["last_day"] is not None:
            info["last_day"]["rated"]["thermal"] = -1.0
            info["last_day"]["actual"].clear()
            info["last_day"]["cost"] = -1.0
        info["stability"] = -1.0


def test_render_of_a_state_changed_in_place_is_fresh() -> None:
    """The reused last text never outlives a change: a state stepped in place by the rules, or
    with a field set by hand, renders as a fresh game renders it."""
    task = read_suite(SUITES / "lite", envs=["energy"]).tasks["energy"][0]
    game, fresh = registry.make_env(task).game, registry.make_env(task).game
    state = game.initial()
    first = game.render(state)
    assert game.render(state) == first == fresh.render(state)
    for text in list(task.certificate.witness)[:3]:
        game.rules.step(state, game.parse(text))
        fresh_text = registry.make_env(task).game.render(state)
        assert game.render(state) == fresh_text != first
    state.stored = state.stored + 1.0
    state.streak = 1000
    assert game.render(state) == registry.make_env(task).game.render(state)
    assert "consecutive violation days 1000" in game.render(state)


def test_facts_equal_the_constructors() -> None:
    """``facts`` builds what ``EnergyFacts(...)`` builds: the same fields in the same order,
    equal values of the same types, still frozen."""
    task = read_suite(SUITES / "odyssey-lite", envs=["energy"]).tasks["energy"][1]
    env = registry.make_env(task)
    env.reset()
    for text in ["", *list(task.certificate.witness)[:5]]:
        env.step(text)
        facts = env.game.facts(env.state)
        built = EnergyFacts(**{f.name: getattr(facts, f.name) for f in dataclasses.fields(facts)})
        assert list(vars(facts)) == list(vars(built))
        assert facts == built and type(facts) is EnergyFacts
        assert [type(v) for v in vars(facts).values()] == [type(v) for v in vars(built).values()]
        with pytest.raises(dataclasses.FrozenInstanceError):
            facts.day = 0  # type: ignore[misc]
