"""Proofs of repo minima (#42): the second encoder agrees with the repo games (v2-v5) on 10,000
random (state, command) pairs, whole formulas agree with breadth-first minima of small worlds,
and the checker accepts a released proof and refuses a corrupted proof, another task's proof and
a proof kept for rules with one rule changed."""

from __future__ import annotations

import copy
import dataclasses
import shutil
from collections import deque
from pathlib import Path
from typing import Any

import click
import numpy as np
import pytest
from click.testing import CliRunner
from pysat.solvers import Solver

from arena_gen.cli import main
from arena_gen.cli import verify as verify_cli
from arena_gen.core import registry
from arena_gen.core.canon import sha256_hex
from arena_gen.core.game import WorldView
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.proofs import repo_cnf, store
from arena_gen.proofs.check import check_task
from arena_gen.proofs.drup import ProofError, check_refutation
from arena_gen.proofs.repo_cnf import (
    encode,
    goal_clauses,
    state_clauses,
    turn_clauses,
)
from arena_gen.proofs.repo_world import EncodeError
from arena_gen.suite.folder import open_suite
from arena_gen.ui import Reporter

SUITES = Path(__file__).resolve().parent.parent / "suites"
ODYSSEY = SUITES / "odyssey-lite"  # the released suite whose repo proofs exist so far
PAIRS = 10_000
PER_WORLD = 100
POOL = ("0.1", "1.0", "1.2", "2.0")
OPS = ("==", "!=", ">=", "<=", ">", "<")
ABSENT = -1


def released_repo() -> list[Task]:
    """Every repo task of the released suites (v5, the Challenge's v6 and odyssey-lite's v2)."""
    return [t for name in ("lite", "challenge", "challenge-moderate", "odyssey-lite")
            for t in read_suite(SUITES / name, envs={"repo"}).tasks["repo"]]


def game_of(version: int, world: dict[str, Any]) -> Any:
    return registry.get("repo", version).load("game")(WorldView(world))


# -- small random worlds in the released format ------------------------------------------------


def random_world(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """Any world the released format allows, small: every priority, side effect, operator,
    conflict, Requires-Python bound, API drift, symbol requirement and rule kind."""
    names = [f"pkg{i}" for i in range(n)]

    def pick(items: Any, low: int, high: int) -> list[Any]:
        size = int(rng.integers(min(low, len(items)), min(high, len(items)) + 1))
        return [items[int(i)] for i in sorted(rng.choice(len(items), size, replace=False))]

    versions = {q: pick(POOL, 1, 3) for q in names}

    def clauses() -> list[list[str]]:
        return [[str(rng.choice(OPS)), str(rng.choice(POOL))]
                for _ in range(int(rng.integers(1, 3)))]

    def call(q: str) -> dict[str, Any]:
        return {"provider": q, "module": f"{q}.core", "symbol": str(rng.choice(["f", "g"])),
                "required_kwargs": pick(["a", "b"], 0, 1)}

    def per_version(make: Any, most: int) -> dict[str, dict[str, Any]]:
        return {q: {v: [make(q) for _ in range(int(rng.integers(0, most + 1)))]
                    for v in versions[q]} for q in names}

    api = {q: {v: {"modules": [f"{q}.core"], "exports": {f"{q}.core": pick(["f", "g"], 0, 2)},
                   "signatures": {f"{q}.core:{s}": pick(["a", "b"], 0, 2) for s in "fg"}}
               for v in versions[q]} for q in names}
    scripts = {path: {"calls": [call(str(rng.choice(names))) for _ in range(int(rng.integers(
        0, 3)))], "imports": pick(names, 0, 2)} for path in ("a.py", "b.py")}
    return {
        "packages": {q: {"priority": str(rng.choice(["high", "medium", "low"])),
                         "versions": versions[q]} for q in names},
        "package_order": [str(x) for x in rng.permutation(names)],
        "python_versions": pick(["3.8", "3.9", "3.10"], 1, 3),
        "version_requires_python": {q: {v: [str(rng.choice(OPS)), "3.9"] for v in versions[q]
                                        if rng.random() < 0.3} for q in names},
        "version_dependencies": per_version(lambda q: [str(rng.choice(names)), clauses()], 2),
        "side_effects": per_version(lambda q: [str(rng.choice(
            ["ensure", "force_high", "force_low", "pin"])), str(rng.choice(names)), clauses()], 2),
        "version_conflicts": per_version(lambda q: [str(rng.choice(names)), str(rng.choice(
            OPS)), str(rng.choice(POOL)), "text"], 1),
        "api_surface": api,
        "symbol_requires": per_version(lambda q: call(str(rng.choice(names))), 1),
        "scripts": scripts,
        "entrypoints": pick(["a.py", "b.py"], 1, 2),
        "consistency_rules": [{"type": str(rng.choice(["same_major_with_anchor",
                                                       "same_minor_with_anchor"])),
                               "anchor": str(rng.choice(names)), "packages": pick(names, 1, 2),
                               "error": "e"} for _ in range(int(rng.integers(0, 2)))],
        "hidden_rules": [{"when": [[q, clauses()] for q in pick(names, 1, 2)],
                          "scope": pick(["run.py", "a.py", "b.py", "*", "c.py"], 1, 1),
                          "error": "e"} for _ in range(int(rng.integers(0, 3)))],
    }


def command_texts(world: dict[str, Any], rng: np.random.Generator) -> list[str]:
    """Commands of every kind: exact, bare and ranged installs, uninstalls, Pythons, runs,
    read-only commands and invalid text."""
    out = ["pip list", "repo tree", "python run.py", "python a.py", "pip install nothing",
           "pip install python==2.7", "bogus"]
    out += [f"pip install python=={py}" for py in world["python_versions"]]
    for q, entry in world["packages"].items():
        out += [f"pip uninstall {q}", f"pip install {q}"]
        out += [f"pip install {q}=={v}" for v in entry["versions"]]
        out.append(f"pip install {q}{rng.choice(['>=', '<', '<=', '>'])}{rng.choice(POOL)}")
    return out


# -- one turn against the game -----------------------------------------------------------------


class OneTurn:
    """The encoder's turn and goal for one world, under assumptions (states as game states)."""

    def __init__(self, world: dict[str, Any], game: Any) -> None:
        self.enc = encode(world, 2)  # states 0 and 1, one turn
        w = self.enc.world
        assert (w.names, w.versions, w.pythons) == (game.rules.names, game.rules.versions,
                                                   game.rules.pythons)
        self.texts = {c.text: i for i, c in enumerate(self.enc.commands)}
        self.turn = Solver(name="minisat22", bootstrap_with=state_clauses(self.enc, 0)
                           + state_clauses(self.enc, 1) + turn_clauses(self.enc, 0))
        self.goal = Solver(name="minisat22", bootstrap_with=state_clauses(self.enc, 0)
                           + goal_clauses(self.enc, 0))
        self.fresh = self.enc.variables + 1

    def lits(self, t: int, state: Any) -> list[int]:
        w = self.enc.world
        py = len(w.pythons) if state.python == ABSENT else state.python
        out = [self.enc.slot(t, -1, py)]
        for q, x in enumerate(state.installed):
            out.append(self.enc.slot(t, q, w.absent(q) if x == ABSENT else x))
        return out

    def successors_are(self, state: Any, forced: list[int], expected: Any | None) -> bool:
        """With ``state`` and ``forced`` assumed, the next state is exactly ``expected`` (None:
        there is none, or only ``state`` itself)."""
        before = self.lits(0, state)
        if expected is None:
            if not self.turn.solve(assumptions=before + forced):
                return True
            expected = state
        after = self.lits(1, expected)
        other = self.fresh
        self.fresh += 1
        self.turn.add_clause([-other] + [-lit for lit in after])
        return bool(self.turn.solve(assumptions=before + forced + after)) and \
            not self.turn.solve(assumptions=before + forced + [other])

    def agrees(self, game: Any, state: Any, text: str) -> bool:
        """The encoder's answer for ``text`` from ``state`` is the game's."""
        after = game.step(state, game.parse(text))[0] if _parses(game, text) else state
        if text == "python run.py":
            return bool(self.goal.solve(assumptions=self.lits(0, state))) == after.run_ok
        after = dataclasses.replace(after, run_ok=False)
        if text in self.texts:  # a command of the formula: its successor is the game's
            forced = [self.enc.command(0, self.texts[text])]
            return self.successors_are(state, forced, None if after == state else after)
        # any other command: the game's successor is one the formula's turn reaches
        return bool(self.turn.solve(assumptions=self.lits(0, state) + self.lits(1, after)))


def _parses(game: Any, text: str) -> bool:
    try:
        game.parse(text)
    except ValueError:
        return False
    return True


def random_state(game: Any, rng: np.random.Generator) -> Any:
    r = game.rules
    py = int(rng.integers(-1, len(r.pythons)))
    installed = tuple(ABSENT if rng.random() < 0.3 else int(rng.integers(len(r.versions[q])))
                      for q in range(r.n))
    return dataclasses.replace(game.initial(), python=py, installed=installed)


def near_states(game: Any, task: Task, rng: np.random.Generator, count: int) -> list[Any]:
    """States on and next to the witness (where rules bite), then random ones."""
    out, state = [], game.initial()
    for text in task.certificate.witness or []:
        out.append(state)
        state = dataclasses.replace(game.step(state, game.parse(text))[0], run_ok=False)
    out.append(state)
    while len(out) < count:
        base = out[int(rng.integers(len(out)))] if rng.random() < 0.5 else \
            random_state(game, rng)
        q = int(rng.integers(game.rules.n))
        moved = list(base.installed)
        moved[q] = int(rng.integers(-1, len(game.rules.versions[q])))
        out.append(dataclasses.replace(base, installed=tuple(moved)))
    return out[:count]


def cases() -> list[tuple[int, dict[str, Any], Task | None]]:
    """(game version, world, task): the released worlds, then small random worlds of every
    version the encoder follows, 100 pairs each, 10,000 in all."""
    items: list[tuple[int, dict[str, Any], Task | None]] = [
        (t.env_version, t.world, t) for t in released_repo()]
    versions = sorted(repo_cnf.GAME_VERSIONS)
    rng = np.random.default_rng(np.random.SeedSequence([42, 1]))
    while len(items) * PER_WORLD < PAIRS:
        items.append((versions[len(items) % len(versions)],
                      random_world(rng, int(rng.integers(2, 5))), None))
    return items


def disagreements(version: int, world: dict[str, Any], task: Task | None,
                  seq: np.random.SeedSequence) -> int:
    rng = np.random.default_rng(seq)
    game = game_of(version, world)
    turn = OneTurn(world, game)
    texts = command_texts(world, rng)
    states = near_states(game, task, rng, PER_WORLD) if task else \
        [random_state(game, rng) for _ in range(PER_WORLD)]
    return sum(not turn.agrees(game, s, texts[int(rng.integers(len(texts)))]) for s in states)


def test_the_encoder_agrees_with_the_games_on_10000_random_states_and_commands() -> None:
    items = cases()
    assert len(items) * PER_WORLD == PAIRS
    assert {v for v, _, _ in items} == set(repo_cnf.GAME_VERSIONS)
    seqs = np.random.SeedSequence(42).spawn(len(items))
    bad = [disagreements(v, w, t, s) for (v, w, t), s in zip(items, seqs, strict=True)]
    assert bad == [0] * len(items)


def test_the_differential_test_catches_one_rule_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoder whose force_low moves to the highest version disagrees with the game."""
    monkeypatch.setattr(repo_cnf, "_move", lambda kind, allowed, old:
                        old if kind == "ensure" and old in allowed else max(allowed))
    items = cases()
    seqs = np.random.SeedSequence(42).spawn(len(items))
    picked = list(zip(items, seqs, strict=True))[:10]  # released Lite worlds
    assert sum(disagreements(v, w, t, s) for (v, w, t), s in picked) > 0


# -- whole formulas against breadth-first minima ---------------------------------------------------


def minimum(game: Any, world: dict[str, Any]) -> int | None:
    """Commands of the shortest completion: breadth-first over the game's own steps."""
    texts = [f"pip install python=={py}" for py in world["python_versions"]]
    for q, entry in world["packages"].items():
        texts += [f"pip uninstall {q}"] + [f"pip install {q}=={v}" for v in entry["versions"]]
    cmds = [game.parse(t) for t in texts]
    run = game.parse("python run.py")
    start = game.initial()
    seen, frontier = {start}, deque([(start, 0)])
    while frontier:
        state, depth = frontier.popleft()
        if game.step(state, run)[0].run_ok:
            return depth + 1
        for cmd in cmds:
            nxt = game.step(state, cmd)[0]
            if nxt not in seen:
                seen.add(nxt)
                frontier.append((nxt, depth + 1))
    return None


def test_the_formula_is_satisfiable_exactly_from_the_minimum() -> None:
    rng = np.random.default_rng(np.random.SeedSequence([7, 1]))
    solvable = checked = 0
    for index in range(60):
        world = random_world(rng, int(rng.integers(1, 4)))
        best = minimum(game_of(5 - index % 4, world), world)
        solvable += best is not None
        for steps in range(0, (best or 5) + 2):
            with Solver(name="minisat22", bootstrap_with=encode(world, steps).clauses) as sat:
                assert sat.solve() == (best is not None and steps >= best), (world, steps)
            checked += 1
    assert solvable >= 15 and checked > 200


def test_the_encoder_refuses_what_it_does_not_read() -> None:
    world = copy.deepcopy(released_repo()[0].world)
    bad = copy.deepcopy(world)
    bad["packages"]["pkg1"]["versions"] = ["1.0", "0.1"]
    with pytest.raises(EncodeError, match=r"world.packages.pkg1.versions: expected distinct"):
        encode(bad, 3)
    bad = copy.deepcopy(world)
    bad["side_effects"]["pkg0"]["0.0"] = [["shrink", "pkg1", []]]
    with pytest.raises(EncodeError, match=r"world.side_effects.pkg0.0.0\[0\]: expected"):
        encode(bad, 3)
    bad = copy.deepcopy(world)
    bad["python_versions"] = []
    with pytest.raises(EncodeError, match="world.python_versions"):
        encode(bad, 3)
# -- proofs of released tasks ------------------------------------------------------------------


def released(task_id: str) -> Task:
    return read_suite(ODYSSEY, task_ids={task_id}).task(task_id)


SMALL = "repo-import-0-0007"  # one dropped rule shortens it (see one_rule_dropped)
OTHER = "repo-import-0-0008"


@pytest.fixture
def suite_copy(tmp_path: Path) -> Path:
    shutil.copytree(ODYSSEY, tmp_path / "odyssey-lite")
    return tmp_path / "odyssey-lite"


def stored_lines(suite: Path, task_id: str) -> list[str]:
    return store.decompress(store.read_proof(suite, store.read_manifest(suite)[task_id]))


def rewrite(suite: Path, task_id: str, lines: list[str]) -> None:
    entries = store.read_manifest(suite)
    data = store.compress(lines)
    store.write_proof(suite, entries[task_id]["file"], data)
    entries[task_id] = {**entries[task_id], "proof_sha256": sha256_hex(data),
                        "bytes": len(data)}
    store.write_manifest(suite, entries)


def refusal(suite: Path, task: Task) -> str:
    with pytest.raises(ProofError) as info:
        check_task(suite, task, store.read_manifest(suite).get(task.id))
    return str(info.value)


def test_a_released_repo_proof_checks() -> None:
    task = released(SMALL)
    entry = store.read_manifest(ODYSSEY)[SMALL]
    assert entry["encoder"] == repo_cnf.ENCODER and entry["min_steps"] == \
        task.certificate.min_steps
    assert check_task(ODYSSEY, task, entry).lemmas > 0


def test_a_corrupted_proof_is_refused(suite_copy: Path) -> None:
    path = suite_copy / "proofs" / f"{SMALL}.drup.xz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    assert "its sha256 is not the manifest's" in refusal(suite_copy, released(SMALL))
    lines = stored_lines(ODYSSEY, SMALL)
    at = next(i for i, line in enumerate(lines) if line[:1] not in ("c", "d")
              and len(line.split()) > 2)
    lines[at] = " ".join(lines[at].split()[1:])  # one literal fewer: a stronger lemma
    rewrite(suite_copy, SMALL, lines)
    assert "does not follow by unit propagation" in refusal(suite_copy, released(SMALL))


def test_a_proof_for_another_task_is_refused(suite_copy: Path) -> None:
    lines = stored_lines(ODYSSEY, OTHER)
    rewrite(suite_copy, SMALL, lines)
    assert f"header says task {OTHER!r}" in refusal(suite_copy, released(SMALL))
    mine = stored_lines(ODYSSEY, SMALL)
    rewrite(suite_copy, SMALL, mine[:len(store.HEADER_KEYS) + 1]
            + lines[len(store.HEADER_KEYS) + 1:])
    with pytest.raises(ProofError):
        check_task(suite_copy, released(SMALL), store.read_manifest(suite_copy)[SMALL])


def one_rule_dropped(task: Task) -> Task:
    """The task with one hidden rule, conflict, side effect or dependency dropped so that a
    completion of ``min_steps - 1`` commands exists."""
    k = task.certificate.min_steps
    assert isinstance(k, int)
    world = task.world
    for key in ("hidden_rules", "version_conflicts", "side_effects", "version_dependencies"):
        if key == "hidden_rules":
            spots = [(key, i) for i in range(len(world[key]))]
        else:
            spots = [(key, q, v, i) for q, table in world[key].items()
                     for v, rules in table.items() for i in range(len(rules))]
        for spot in spots:
            mutant = copy.deepcopy(world)
            holder = mutant[spot[0]]
            for part in spot[1:-1]:
                holder = holder[part]
            del holder[spot[-1]]
            with Solver(name="minisat22", bootstrap_with=encode(mutant, k - 1).clauses) as s:
                if s.solve():
                    return dataclasses.replace(task, world=mutant)
    raise AssertionError("no single rule dropped shortens this task")


def test_an_encoding_with_one_rule_changed_is_refused(suite_copy: Path) -> None:
    task = released(SMALL)
    mutant = one_rule_dropped(task)
    body = [line for line in stored_lines(ODYSSEY, SMALL) if not line.startswith("c")]
    k = task.certificate.min_steps
    assert isinstance(k, int)
    enc = encode(mutant.world, k - 1)  # the rules changed, the proof kept
    with pytest.raises(ProofError):
        check_refutation(enc.variables, enc.clauses, body)
    with pytest.raises(ProofError, match="header says task-sha256"):
        check_task(suite_copy, mutant, {**store.read_manifest(suite_copy)[SMALL],
                                        "task_sha256": mutant.sha256})


def test_a_manifest_without_repo_proofs_leaves_repo_not_covered(suite_copy: Path) -> None:
    """A proofs manifest made before repo proofs (lights entries only, no ``envs`` list) asks
    for lights proofs only; one that lists repo under ``envs`` asks for every repo proof."""
    entries = store.read_manifest(suite_copy)
    lights = {i: e for i, e in entries.items() if e["encoder"] != repo_cnf.ENCODER}
    store.write_manifest(suite_copy, lights)
    assert store.proved_envs(suite_copy) == {"lights"}
    store.write_manifest(suite_copy, lights, ["lights", "repo"])
    assert store.proved_envs(suite_copy) == {"lights", "repo"}


def test_check_limits_are_options_of_prove_and_verify(suite_copy: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``prove --check-seconds`` and ``verify --proofs --proof-seconds`` bound each check: at
    0 s every proof longer than 256 lines is refused, saying so."""
    result = CliRunner().invoke(main, ["prove", str(suite_copy), "--env", "repo",
                                       "--check-seconds", "0", "--display", "plain"])
    assert result.exit_code != 0 and "time limit of 0 s reached" in result.output
    with pytest.raises(click.ClickException, match="proof problem"):
        verify_cli._verify_proofs(open_suite(suite_copy), Reporter("plain"), 0.0)
    assert "time limit of 0 s reached" in capsys.readouterr().out
