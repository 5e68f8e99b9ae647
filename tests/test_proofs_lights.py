"""Proofs of lights minima (#42): the second encoder agrees with the game, the checker accepts
a released Challenge task's proof and refuses a corrupted proof, another task's proof, and a
proof of an encoding with one rule changed."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from arena_gen.cli import main
from arena_gen.cli import verify as verify_cli
from arena_gen.core import registry
from arena_gen.core.canon import sha256_hex
from arena_gen.core.game import WorldView
from arena_gen.core.suite_io import read_suite
from arena_gen.core.task import Task
from arena_gen.proofs import lights_cnf, store
from arena_gen.proofs.check import check_suite, check_task
from arena_gen.proofs.drup import Limits, ProofError, check_refutation
from arena_gen.proofs.lights_cnf import EncodeError, encode
from arena_gen.proofs.produce import prove_task, refute
from arena_gen.suite.folder import open_suite
from arena_gen.ui import Reporter

SUITES = Path(__file__).resolve().parent.parent / "suites"
CHALLENGE = SUITES / "challenge-moderate"  # whole-world proofs (the paper-scale Challenge's
SMALL = "lights-challenge-7-0008"  # are decomposed: test_proofs_parts); its fastest to check
PAIRS = 10_000


def released_lights() -> list[Task]:
    """Every lights task of the released suites (their worlds, as verify reads them)."""
    return [t for name in ("lite", "challenge", "challenge-moderate", "odyssey-lite")
            for t in read_suite(SUITES / name, envs={"lights"}).tasks["lights"]]


def random_condition(rng: np.random.Generator, n: int, depth: int) -> dict[str, Any]:
    """Any condition the AST allows: constants, self-reads, double negations, deep nesting."""
    roll = rng.random()
    if depth == 0 or roll < 0.3:
        return {"var": int(rng.integers(n))} if rng.random() < 0.85 else \
            {"const": bool(rng.integers(2))}
    if roll < 0.45:
        return {"not": random_condition(rng, n, depth - 1)}
    return {("and" if roll < 0.75 else "or"): [random_condition(rng, n, depth - 1),
                                             random_condition(rng, n, depth - 1)]}


def random_world(rng: np.random.Generator, n: int) -> dict[str, Any]:
    return {"n": n, "conditions": [random_condition(rng, n, 3) for _ in range(n)]}


def game_step(version: int, world: dict[str, Any]) -> Callable[[int, int], int]:
    """The transition of the Game class registered for lights ``version``."""
    game = registry.get("lights", version).load("game")(WorldView(world))
    return lambda state, bulb: game.step(state, bulb)[0]


def step_disagreements(world: dict[str, Any], step: Callable[[int, int], int],
                       pairs: list[tuple[int, int]], make: Callable[..., Any] = encode) -> int:
    """Pairs where one encoded turn does not force exactly the game's next state: the formula
    of one turn (start and goal clauses left out) with the state and toggle assumed must be
    satisfiable with the game's next state and with no other."""
    enc = make(world, 1)
    n = enc.n
    start = {(-enc.state(0, i),) for i in range(n)}
    goal = {enc.done(1), -enc.done(1)}
    clauses = [c for c in enc.clauses if c not in start and not goal & set(c)]
    bad = 0
    with Solver(name="minisat22", bootstrap_with=clauses) as sat:
        for index, (state, bulb) in enumerate(pairs):
            expected = step(state, bulb)
            assumed = [enc.state(0, i) if state >> i & 1 else -enc.state(0, i)
                       for i in range(n)] + [enc.action(0, bulb)]
            after = [enc.state(1, i) if expected >> i & 1 else -enc.state(1, i)
                     for i in range(n)]
            other = enc.variables + 1 + index  # activates "the next state differs"
            sat.add_clause([-other] + [-lit for lit in after])
            if not sat.solve(assumptions=assumed + after) or sat.solve(assumptions=assumed +
                                                                        [other]):
                bad += 1
    return bad


def worlds_and_pairs() -> list[tuple[int, dict[str, Any], list[tuple[int, int]]]]:
    """(game version, world, 50 random (state, toggle) pairs): the released worlds, then
    random ones of every version this encoder follows, 10,000 pairs in all."""
    root = np.random.SeedSequence(42)
    items: list[tuple[int, dict[str, Any]]] = [(t.env_version, t.world)
                                               for t in released_lights()]
    versions = sorted(lights_cnf.GAME_VERSIONS)
    world_rng = np.random.default_rng(root.spawn(1)[0])
    while len(items) * 50 < PAIRS:
        items.append((versions[len(items) % len(versions)],
                       random_world(world_rng, int(world_rng.integers(1, 13)))))
    out = []
    for (version, world), child in zip(items, root.spawn(len(items)), strict=True):
        rng = np.random.default_rng(child)
        n = int(world["n"])
        out.append((version, world, [(int(rng.integers(1 << n)), int(rng.integers(n)))
                                     for _ in range(50)]))
    return out


def test_the_encoder_agrees_with_the_game_on_10000_random_states_and_toggles() -> None:
    cases = worlds_and_pairs()
    assert sum(len(p) for _, _, p in cases) == PAIRS
    assert {v for v, _, _ in cases} == set(lights_cnf.GAME_VERSIONS)
    assert [step_disagreements(w, game_step(v, w), p) for v, w, p in cases] == [0] * len(cases)


def test_the_differential_test_catches_one_rule_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoder whose conditions always hold disagrees with the game (the test can fail)."""
    version, world, pairs = next(c for c in worlds_and_pairs() if c[1]["n"] >= 8)
    monkeypatch.setattr(lights_cnf, "_literal", lambda node, x, true, out: true)
    assert step_disagreements(world, game_step(version, world), pairs) > 0


def minimum(world: dict[str, Any], step: Callable[[int, int], int]) -> int | None:
    """Breadth-first search over the game's own steps (small worlds only)."""
    n, goal = int(world["n"]), (1 << int(world["n"])) - 1
    depth, frontier, seen = 0, [0], {0}
    while frontier:
        if goal in frontier:
            return depth
        nxt = []
        for s in frontier:
            for b in range(n):
                t = step(s, b)
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier, depth = nxt, depth + 1
    return None


def test_the_formula_is_satisfiable_exactly_from_the_minimum() -> None:
    """Start, turns and goal together: SAT at ``steps`` iff a completion that short exists."""
    rng = np.random.default_rng(np.random.SeedSequence(7))
    checked = 0
    for _ in range(40):
        world = random_world(rng, int(rng.integers(1, 6)))
        best = minimum(world, game_step(4, world))
        for steps in range(0, (best or 6) + 2):
            with Solver(name="minisat22", bootstrap_with=encode(world, steps).clauses) as sat:
                assert sat.solve() == (best is not None and steps >= best), (world, steps)
            checked += 1
    assert checked > 100


def test_the_encoder_refuses_malformed_worlds() -> None:
    with pytest.raises(EncodeError, match=r"world.conditions\[1\].and: expected a list of two"):
        encode({"n": 2, "conditions": [{"const": True}, {"and": [{"var": 0}]}]}, 3)
    with pytest.raises(EncodeError, match=r"world.conditions\[0\].var: expected a bulb index"):
        encode({"n": 2, "conditions": [{"var": 2}, {"var": 0}]}, 3)
    with pytest.raises(EncodeError, match="world.n"):
        encode({"n": True, "conditions": []}, 3)


# -- the checker ---------------------------------------------------------------------------

XOR = [(1, 2), (-1, 2), (1, -2), (-1, -2)]  # unsatisfiable, refuted by "2", then ""


def test_drup_accepts_a_refutation_and_refuses_what_does_not_follow() -> None:
    assert check_refutation(2, XOR, ["2 0", "0"]).lemmas == 2
    with pytest.raises(ProofError, match="line 1: lemma 1 does not follow"):
        check_refutation(2, XOR, ["0"])
    with pytest.raises(ProofError, match="without the empty clause"):
        check_refutation(2, XOR, ["2 0"])
    with pytest.raises(ProofError, match="names no variable"):
        check_refutation(2, XOR, ["3 0", "0"])
    with pytest.raises(ProofError, match="not a DRUP line"):
        check_refutation(2, XOR, ["2 x 0", "0"])


def test_drup_honours_deletions() -> None:
    """A deleted clause no longer propagates: one copy of (1 2) left, "2" follows; none left,
    it does not; without (1 -2), "2" follows but the empty clause does not."""
    twice = [*XOR, (2, 1)]
    stats = check_refutation(2, twice, ["d 1 2 0", "2 0", "0"])
    assert (stats.deletions, stats.ignored_deletions) == (1, 0)
    with pytest.raises(ProofError, match="line 4: lemma 1 does not follow"):
        check_refutation(2, twice, ["d 1 2 0", "d 2 1 0", "d 1 2 0", "2 0", "0"])
    with pytest.raises(ProofError, match="line 3: lemma 2 does not follow"):
        check_refutation(2, XOR, ["d 1 -2 0", "2 0", "0"])


def test_drup_bounds_its_work() -> None:
    with pytest.raises(ProofError, match="more than 1 lines"):
        check_refutation(2, XOR, ["2 0", "0"], Limits(lines=1))
    with pytest.raises(ProofError, match="time limit of 0 s reached at line 256"):
        check_refutation(2, XOR, ["c"] * 300 + ["2 0", "0"], Limits(seconds=0))


small_cnf = st.lists(st.lists(st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v])),
                              min_size=1, max_size=3), min_size=12, max_size=40)


@settings(max_examples=200)
@given(small_cnf)
def test_drup_accepts_solver_proofs_and_never_a_satisfiable_formula(
        cnf: list[list[int]]) -> None:
    """Random 3-CNFs over 6 variables: the solvers' proofs of unsatisfiable ones check, and a
    proof replayed on the formula with any one clause dropped checks only if that stays
    unsatisfiable (the checker never refutes a satisfiable formula)."""
    with Solver(name="minisat22", bootstrap_with=cnf) as sat:
        if sat.solve():
            with pytest.raises(ProofError):
                check_refutation(6, cnf, ["0"])
            return
    for solver in ("cadical195", "glucose4"):
        proof = refute(cnf, solver)
        check_refutation(6, cnf, proof)
        for drop in range(len(cnf)):
            fewer = cnf[:drop] + cnf[drop + 1:]
            with Solver(name="minisat22", bootstrap_with=fewer) as sat:
                satisfiable = sat.solve()
            if satisfiable:
                with pytest.raises(ProofError):
                    check_refutation(6, fewer, proof)


# -- proofs of released tasks ----------------------------------------------------------------


def released(task_id: str) -> Task:
    return read_suite(CHALLENGE, task_ids={task_id}).task(task_id)


def test_a_released_challenge_proof_checks() -> None:
    task = released(SMALL)
    entry = store.read_manifest(CHALLENGE)[SMALL]
    stats = check_task(CHALLENGE, task, entry)
    assert stats.lemmas > 0 and entry["min_steps"] == task.certificate.min_steps == 14


@pytest.fixture
def suite_copy(tmp_path: Path) -> Path:
    """A copy of the released Challenge with its proofs (tasks, manifest, proofs/)."""
    shutil.copytree(CHALLENGE, tmp_path / "challenge")
    return tmp_path / "challenge"


def rewrite(suite: Path, task_id: str, lines: list[str]) -> None:
    """Store ``lines`` as ``task_id``'s proof and list its hash (only the checker can refuse)."""
    entries = store.read_manifest(suite)
    data = store.compress(lines)
    store.write_proof(suite, entries[task_id]["file"], data)
    entries[task_id] = {**entries[task_id], "proof_sha256": sha256_hex(data),
                        "bytes": len(data)}
    store.write_manifest(suite, entries)


def stored_lines(suite: Path, task_id: str) -> list[str]:
    return store.decompress(store.read_proof(suite, store.read_manifest(suite)[task_id]))


def refusal(suite: Path, task_id: str) -> str:
    with pytest.raises(ProofError) as info:
        check_task(suite, released(task_id), store.read_manifest(suite).get(task_id))
    return str(info.value)


def test_a_corrupted_proof_is_refused(suite_copy: Path) -> None:
    path = suite_copy / "proofs" / f"{SMALL}.drup.xz"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    assert f"{SMALL}.drup.xz (task {SMALL}): its sha256 is not the manifest's" in \
        refusal(suite_copy, SMALL)
    lines = stored_lines(CHALLENGE, SMALL)  # a lemma changed, the file's hash listed anew
    at = next(i for i, line in enumerate(lines) if line[:1] not in ("c", "d")
              and len(line.split()) > 2)
    lines[at] = " ".join(lines[at].split()[1:])  # one literal fewer: a stronger claim
    rewrite(suite_copy, SMALL, lines)
    assert "does not follow by unit propagation" in refusal(suite_copy, SMALL)
    path.unlink()
    assert f"{SMALL}.drup.xz (task {SMALL}): the proof file is missing" in \
        refusal(suite_copy, SMALL)


def test_a_proof_for_another_task_is_refused(suite_copy: Path) -> None:
    other = "lights-challenge-7-0007"
    lines = stored_lines(CHALLENGE, other)
    rewrite(suite_copy, SMALL, lines)
    assert "header says task 'lights-challenge-7-0007'" in refusal(suite_copy, SMALL)
    mine = stored_lines(CHALLENGE, SMALL)  # the other's lemmas under this task's header
    rewrite(suite_copy, SMALL, mine[:len(store.HEADER_KEYS) + 1]
            + lines[len(store.HEADER_KEYS) + 1:])
    assert "does not follow by unit propagation" in refusal(suite_copy, SMALL)
    entries = store.read_manifest(suite_copy)  # the manifest bound to another task's content
    entries[SMALL] = {**entries[SMALL], "task_sha256": entries[other]["task_sha256"]}
    store.write_manifest(suite_copy, entries)
    assert "binds this proof to another task" in refusal(suite_copy, SMALL)


def changed_rule(task: Task) -> Task:
    """The task with one bulb's condition replaced by "always" so that its minimum drops."""
    for bulb in range(int(task.world["n"])):
        world = copy.deepcopy(task.world)
        world["conditions"][bulb] = {"const": True}
        best = minimum(world, game_step(task.env_version, world))
        if best is not None and best < task.certificate.min_steps:
            return dataclasses.replace(task, world=world)
    raise AssertionError("no single rule change shortens this task")


def test_an_encoding_with_one_rule_changed_is_refused(suite_copy: Path) -> None:
    task = released(SMALL)
    mutant = changed_rule(task)
    body = [line for line in stored_lines(CHALLENGE, SMALL) if not line.startswith("c")]
    k = task.certificate.min_steps
    assert isinstance(k, int)
    enc = encode(mutant.world, k - 1)  # the rules changed, the proof kept
    with pytest.raises(ProofError, match="does not follow by unit propagation"):
        check_refutation(enc.variables, enc.clauses, body)
    with pytest.raises(ProofError, match="header says task-sha256"):
        check_task(suite_copy, mutant, {**store.read_manifest(suite_copy)[SMALL],
                                        "task_sha256": mutant.sha256})
    # A proof of the changed encoding, relabelled as this task's, is refused as well: the
    # conditions read as "never" refute at once, the real rules do not.
    never = lights_cnf.encode({"n": task.world["n"],
                               "conditions": [{"const": False}] * int(task.world["n"])}, k - 1)
    forged = store.header(task, encode(task.world, k - 1), "forged") + refute(never.clauses,
                                                                            "glucose4")
    rewrite(suite_copy, SMALL, forged)
    assert "does not follow by unit propagation" in refusal(suite_copy, SMALL)


def test_prove_then_verify_proofs_on_the_cli(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``prove`` writes a proof per lights task; the proofs step of ``verify --proofs`` names a
    missing proof's file and task (the tasks' own re-proving is tested elsewhere)."""
    suite = tmp_path / "lite"
    shutil.copytree(SUITES / "lite", suite)
    shutil.rmtree(suite / "proofs", ignore_errors=True)
    result = CliRunner().invoke(main, ["prove", str(suite), "--env", "lights", "--jobs", "2",
                                       "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "30 proof(s) written and checked" in result.output
    manifest = json.loads((suite / "proofs" / "manifest.json").read_text())
    assert set(manifest["proofs"]) == {t.id for t in read_suite(suite).tasks["lights"]}
    released_entries = store.read_manifest(SUITES / "lite")  # proved one task at a time
    assert all(entry == released_entries[task_id]
               for task_id, entry in manifest["proofs"].items())
    (suite / "proofs" / "lights-lite-7-0003.drup.xz").unlink()
    capsys.readouterr()
    with pytest.raises(click.ClickException, match="1 proof problem"):
        verify_cli._verify_proofs(open_suite(suite), Reporter("plain"))
    out = capsys.readouterr().out
    assert "lights  30     29" in out  # env, tasks, ok
    assert "FAIL lights-lite-7-0003: " in out
    assert "lights-lite-7-0003.drup.xz (task lights-lite-7-0003): the proof file is missing" \
        in out


def test_verify_proofs_refuses_a_suite_without_proofs(tmp_path: Path) -> None:
    suite = tmp_path / "lite"
    shutil.copytree(SUITES / "lite", suite)
    shutil.rmtree(suite / "proofs")
    report = check_suite(suite)
    assert not report.ok and "proofs/manifest.json: missing (make the proofs with arena-gen " \
        "prove" in report.problems[0]


def test_proving_again_gives_the_same_bytes_and_binding() -> None:
    """Proving is deterministic (the solver and xz), and a fresh proof binds what the stored
    one binds (its bytes may differ under another solver build)."""
    task = released(SMALL)
    (first, data), (_, again) = prove_task(task), prove_task(task)
    assert data == again and sha256_hex(data) == first.entry["proof_sha256"]
    stored = store.read_manifest(CHALLENGE)[SMALL]
    binding = ("task_sha256", "min_steps", "encoder", "cnf_sha256", "file")
    assert {k: first.entry[k] for k in binding} == {k: stored[k] for k in binding}


def test_build_with_proofs_stores_the_checked_proofs(tmp_path: Path) -> None:
    """``build --proofs`` proves the suite it wrote, as ``prove`` does: the lights Lite proofs
    of seed 7 are the released ones, and ``verify --proofs`` accepts them."""
    out = tmp_path / "lite"
    result = CliRunner().invoke(main, ["build", "--suite", "lite", "--seed", "7", "--env",
                                       "lights", "--out", str(out), "--no-cache", "--jobs", "2",
                                       "--proofs", "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "30 proof(s) written and checked" in result.output
    released_entries = store.read_manifest(SUITES / "lite")
    built = store.read_manifest(out)
    assert built == {k: v for k, v in released_entries.items() if k.startswith("lights-")}
    assert check_suite(out).ok
