"""Mutation fuzzing of every input surface, shared by the bounded hypothesis tests
(``test_fuzz_surfaces.py``) and the long benchmark (``benchmarks/bench_fuzz.py``).

Each surface is a function ``case(work, rng)`` that writes one mutated input under ``work``,
feeds it to the code a user would reach, and returns ``"ok"`` or ``"error"`` (the project's
:class:`ArenaGenError`, or a clean CLI exit). Anything else escapes: that is a traceback, a bug.
Mutations start from a valid document and damage it on two levels: the JSON tree (a node
replaced by a hostile value, a key dropped, a list emptied or blown up) and the bytes (flips,
cuts, insertions, NaN). Tree mutations of tasks are re-hashed half the time, so they get past
the hash check into the env's own compiler and a few played turns.
"""

from __future__ import annotations

import functools
import json
import random
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena_gen.core.canon import canonical_json, sha256_of
from arena_gen.core.errors import ArenaGenError

REPO = Path(__file__).resolve().parent.parent
LITE = REPO / "suites" / "lite"
RELEASED = REPO.parent / "shared" / "reference-data" / "odyssey-arena"
RELEASED_FILES = {
    "lights": RELEASED / "lights" / "test_turnonlights_lite_251030.json",
    "trading": RELEASED / "trading" / "test_trade_config_1.json",
    "energy": RELEASED / "energy" / "test_energy_lite_251207.json",
    "repo": RELEASED / "repo" / "test_repo_lite_251217.json",
}

# ---------------------------------------------------------------------------------- mutations


def _deep(depth: int) -> Any:
    node: Any = 0
    for _ in range(depth):
        node = [node]
    return node


HOSTILE: list[Callable[[random.Random], Any]] = [
    lambda r: None, lambda r: True, lambda r: False, lambda r: 0, lambda r: -1,
    lambda r: r.randint(-(2**70), 2**70), lambda r: 10**300, lambda r: 1e308, lambda r: -1e-320,
    lambda r: 0.5, lambda r: "", lambda r: "x" * r.choice([1, 100, 100_000]),
    lambda r: "\ud800", lambda r: "B99", lambda r: "not " * r.choice([10, 2000]) + "B0",
    lambda r: "(" * 3000 + "B0" + ")" * 3000, lambda r: [], lambda r: {},
    lambda r: [0] * r.choice([1, 1000, 100_000]), lambda r: {"var": r.choice([-1, 99, 2**40])},
    lambda r: _deep(r.choice([50, 99, 150, 600])), lambda r: {"": None, "\x00": []},
    lambda r: r.choice(["lights", "trading", "energy", "repo", "../x", "Lights"]),
]


def _paths(node: Any, prefix: tuple[Any, ...] = (), out: list[tuple[Any, ...]] | None = None,
           limit: int = 5000) -> list[tuple[Any, ...]]:
    """Paths to (a sample of) the nodes of a JSON tree, breadth-limited."""
    out = [] if out is None else out
    stack = [(node, prefix)]
    while stack and len(out) < limit:
        cur, path = stack.pop()
        out.append(path)
        if isinstance(cur, dict):
            stack.extend((v, (*path, k)) for k, v in cur.items())
        elif isinstance(cur, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(cur[:50]))
    return out


def _same_type(value: Any, rng: random.Random) -> Any:
    """A value of the same JSON type, often out of the range the env expects (these get past
    the schema into the env's compiler)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice([value + 1, value - 1, -value, 0, -1, 99, 2**31, 2**63, value * 1000])
    if isinstance(value, float):
        return rng.choice([value * 1e6, -value, 0.0, 1e-300, 1e300, value + 0.5])
    if isinstance(value, str):
        return rng.choice(["", value[::-1], value * 2, "B99", "not", value + " and B1"])
    if isinstance(value, list):
        return rng.choice([value[:-1], value + value[-1:], value[::-1], []])
    if isinstance(value, dict) and value:
        out = dict(value)
        del out[rng.choice(sorted(out))]
        return out
    return value


def mutate_tree(doc: Any, rng: random.Random, rounds: int | None = None) -> Any:
    """A deep copy of ``doc`` with 1-3 edits at random nodes: hostile values, or values of the
    same type that the schema lets through."""
    doc = json.loads(json.dumps(doc))
    preserve = rng.random() < 0.5
    for _ in range(rounds or rng.randint(1, 3)):
        paths = _paths(doc)
        path = rng.choice(paths)
        if preserve and path:
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = _same_type(parent[path[-1]], rng)
            continue
        if not path:
            doc = rng.choice(HOSTILE)(rng)
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        op = rng.random()
        if op < 0.15 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.25 and isinstance(parent, list):
            parent.insert(key, parent[key])
        elif op < 0.3 and isinstance(parent, dict):
            parent[rng.choice(["extra", "id", "env", "world", "budget"])] = rng.choice(
                HOSTILE)(rng)
        else:
            parent[key] = rng.choice(HOSTILE)(rng)
    return doc


def mutate_one(items: list[Any], rng: random.Random) -> None:
    """Replace one document of ``items`` (in place) by a structural mutation of it, when that
    mutation is still an object (shared by the forgery and substitution surfaces)."""
    if items:
        i = rng.randrange(len(items))
        tree = mutate_tree(items[i], rng)
        if isinstance(tree, dict):
            items[i] = tree


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """``data`` with 1-4 byte-level edits."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randrange(len(buf) + 1)
        if op < 0.3 and buf:
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif op < 0.5:
            del buf[pos:pos + rng.randint(1, 20)]
        elif op < 0.7:
            buf[pos:pos] = rng.choice([b"NaN", b"-Infinity", b"1e400", b"\xff", b"\xed\xa0\x80",
                                       b"[" * 200, b"[" * 5000, b'"', b"{", b",", b"\n",
                                       b"9" * 5000])
        elif op < 0.8:
            del buf[pos:]
        else:
            buf[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(buf)


def canonical_line(doc: Any) -> bytes:
    """A document's bytes as arena-gen writes a suite line (canonical JSON), for base suites."""
    return canonical_json(doc).encode("utf-8")


def dumps(doc: Any) -> bytes:
    """JSON bytes of a mutated tree (lone surrogates kept as escapes, as a hostile file would)."""
    return json.dumps(doc).encode("utf-8")


def canonical_or_dumps(doc: Any) -> bytes:
    """A mutated tree as arena-gen would write it (canonical bytes, so it gets past the readers'
    canonical-form check to the checks behind it), or :func:`dumps` when canonical JSON refuses
    a hostile value (NaN, a lone surrogate)."""
    try:
        return canonical_line(doc)
    except (ValueError, UnicodeEncodeError):
        return dumps(doc)


def mutate_doc(doc: Any, rng: random.Random) -> tuple[bytes, Any]:
    """Bytes of a damaged ``doc``: tree edits, byte edits, or both; and the tree (or None)."""
    if rng.random() < 0.6:
        tree = mutate_tree(doc, rng)
        data = dumps(tree)
        return (mutate_bytes(data, rng), None) if rng.random() < 0.15 else (data, tree)
    return mutate_bytes(dumps(doc), rng), None


# ---------------------------------------------------------------------------------- base data

_SURROGATE = re.compile("[\ud800-\udfff]")


@functools.cache
def _lite_tasks() -> dict[str, dict[str, Any]]:
    """The first lite task of each env, as JSON."""
    out = {}
    for env in ("lights", "trading", "energy", "repo"):
        with open(LITE / f"{env}.jsonl", "rb") as fh:
            out[env] = json.loads(fh.readline())
    return out


def _task_hash(body: dict[str, Any]) -> str | None:
    try:
        return sha256_of({k: v for k, v in body.items() if k != "sha256"})
    except Exception:  # a hostile value canonical JSON refuses: leave the stale hash
        return None


def write_suite_dir(folder: Path, env: str, line: bytes, task_id: Any, sha: Any) -> Path:
    """A one-task suite folder holding ``line`` as its only task (written raw, not checked)."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((LITE / "manifest.json").read_bytes())
    tid = task_id if isinstance(task_id, str) else "x"
    if _SURROGATE.search(tid):  # the manifest must hash; the task line itself stays hostile
        tid = "x"
    manifest.update(counts={env: 1}, tasks={tid: sha if isinstance(sha, str) else "0" * 64})
    manifest["suite_sha256"] = sha256_of(dict(sorted(manifest["tasks"].items())))
    # the manifest as arena-gen writes it (canonical bytes), so only the line is hostile
    (folder / "manifest.json").write_text(canonical_json(manifest) + "\n")
    (folder / f"{env}.jsonl").write_bytes(line + b"\n")
    return folder


class _Quitter:
    """Plays a few actions (the witness's, or junk), then quits."""

    name = "fuzz"
    privileged = False

    def __init__(self, actions: list[str]) -> None:
        self.actions = actions

    def reset(self, view: Any, mode: str, rng: Any) -> None:
        pass

    def act(self, observation: str) -> str:
        from arena_gen.core.agent import QuitEpisode

        if not self.actions:
            raise QuitEpisode("done")
        return self.actions.pop()


def _expect_project_error(fn: Callable[[], Any]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except ArenaGenError:
            return "error"
    return "ok"


# ---------------------------------------------------------------------------------- surfaces


def suite_task_case(work: Path, rng: random.Random, env: str | None = None) -> str:
    """A damaged task line in a suite (of ``env``, else a random env's): read, compile
    (check_playable) and play a few turns."""
    from arena_gen.core.episode import run_episode
    from arena_gen.core.suite_io import read_suite
    from arena_gen.runner.run import check_playable

    env = env or rng.choice(sorted(_lite_tasks()))
    base = _lite_tasks()[env]
    data, tree = mutate_doc(base, rng)
    sha = base["sha256"]
    task_id: Any = base["id"]
    if isinstance(tree, dict):
        task_id = tree.get("id", task_id)
        if rng.random() < 0.7:  # re-hashed and canonical: on to the env's compiler
            sha = _task_hash(tree) or sha
            tree["sha256"] = sha
            data = canonical_or_dumps(tree)
        else:
            sha = tree.get("sha256", sha)
    folder = write_suite_dir(work / "suite", env, data, task_id, sha)

    def go() -> None:
        suite = read_suite(folder)
        tasks = suite.all_tasks()
        check_playable(tasks, folder)
        for task in tasks:
            witness = list(task.certificate.witness or [])[:3]
            junk = [rng.choice(["", "99", "-1", "buy 1e999", "{" * 50, "\ud800", "x" * 5000])]
            run_episode(task, _Quitter([*junk, *reversed(witness)]))

    return _expect_project_error(go)


def manifest_case(work: Path, rng: random.Random) -> str:
    """A damaged manifest over a valid task file: read the suite."""
    from arena_gen.core.suite_io import is_our_suite, read_suite

    base = _lite_tasks()["lights"]
    folder = write_suite_dir(work / "suite", "lights", canonical_line(base), base["id"],
                             base["sha256"])
    manifest = json.loads((folder / "manifest.json").read_bytes())
    data, tree = mutate_doc(manifest, rng)
    if tree is not None and rng.random() < 0.7:  # canonical bytes: on to the schema and counts
        data = canonical_or_dumps(tree) + b"\n"
    (folder / "manifest.json").write_bytes(data)
    is_our_suite(folder)  # must not raise at all
    return _expect_project_error(lambda: read_suite(folder))


@functools.cache
def _released_entry(env: str) -> Any:
    data = json.loads(RELEASED_FILES[env].read_bytes())
    return [data[0]] if isinstance(data, list) else data


def import_case(work: Path, rng: random.Random, env: str | None = None,
                verify: bool = True) -> str:
    """A damaged released file of one env: import it (parse, and with ``verify`` prove and
    replay), sometimes detecting its env."""
    from arena_gen.suite.importer import detect_env, import_tasks

    env = env or rng.choice(sorted(RELEASED_FILES))
    data, _ = mutate_doc(_released_entry(env), rng)
    path = work / "released.json"
    path.write_bytes(data)
    if verify:
        return _expect_project_error(lambda: import_tasks(env, [path]))
    from arena_gen.core import registry

    load = registry.newest_with(env, "importer").load("importer")
    from arena_gen.suite.importer import _guarded

    if rng.random() < 0.2:
        return _expect_project_error(lambda: detect_env(path))
    return _expect_project_error(lambda: _guarded(path, "read it", lambda: load(path)))


@functools.cache
def _base_run() -> tuple[bytes, bytes]:
    """One random-agent lights episode and its run.json (made once), as bytes."""
    import tempfile

    from arena_gen.runner.run import RunConfig, run_suite

    base = _lite_tasks()["lights"]
    tmp = Path(tempfile.mkdtemp(prefix="fuzz-run-"))
    folder = write_suite_dir(tmp / "suite", "lights", canonical_line(base), base["id"],
                             base["sha256"])
    rundir = run_suite(RunConfig(suite=str(folder), agent="random", out=str(tmp / "run")))
    return rundir.trajectories.read_bytes(), rundir.run_json.read_bytes()


def _chained(records: list[Any], meta: dict[str, Any]) -> bytes | None:
    """``records`` as a valid hash chain from ``meta``'s plan (``meta``'s head set to match),
    as a forger who recomputes the digests writes them; None when a record cannot be a line
    (not an object, or a value canonical JSON refuses)."""
    from arena_gen.runner.rundir import chain_lines, plan_digest

    if not all(isinstance(r, dict) for r in records):
        return None
    try:
        data, head = chain_lines(records, plan_digest(meta))
    except (ValueError, TypeError, AttributeError):
        return None
    meta["chain"] = {"head": head}
    return data


def rundir_case(work: Path, rng: random.Random) -> str:
    """A damaged trajectories.jsonl line or run.json, re-chained most of the time (as a forger
    would: the damage reaches the schema, the plan checks and the replay): read, then score."""
    from arena_gen.runner.rundir import PREV, RunDir
    from arena_gen.scoring.score import score_run

    base = _lite_tasks()["lights"]
    folder = write_suite_dir(work / "suite", "lights", canonical_line(base), base["id"],
                             base["sha256"])
    trajectories, run_json = _base_run()
    meta = json.loads(run_json)
    meta["suite_path"] = meta["suite"] = str(folder)  # not the released "lite" (120 tasks)
    record = {k: v for k, v in json.loads(trajectories).items() if k != PREV}
    honest = _chained([record], meta)
    assert honest is not None
    rechain = rng.random() < 0.7
    run = work / "run"
    run.mkdir(parents=True, exist_ok=True)
    if rng.random() < 0.7:
        data, tree = mutate_doc(record, rng)
        kept = [record] if rng.random() < 0.5 else []
        chained = _chained([*kept, tree], meta) if rechain else None
        if chained is None:
            lines = [honest.rstrip(b"\n"), data] if kept else [data]
            chained = b"\n".join(lines) + b"\n"
        (run / "trajectories.jsonl").write_bytes(chained)
        (run / "run.json").write_text(json.dumps(meta))
    else:
        (run / "trajectories.jsonl").write_bytes(honest)
        data, tree = mutate_doc(meta, rng)
        if rechain and isinstance(tree, dict):  # the lines chained to the edited plan
            chained = _chained([record], tree)
            if chained is not None:
                (run / "trajectories.jsonl").write_bytes(chained)
                data = dumps(tree)
        (run / "run.json").write_bytes(data)
    rundir = RunDir(run)

    def go() -> None:
        rundir.records()
        rundir.finished()
        rundir.read_meta()
        score_run(run)

    return _expect_project_error(go)


GOOD_FINDING = {"task_id": "t1", "attempt": 0, "env": "lights", "flags": {},
                "findings": [{"item": "a", "status": "met", "evidence": "e"},
                             {"item": "b", "status": "violated", "evidence": "e"}]}
GOOD_RUBRICS = {"t1": ["a", "b"], "t2": [{"id": "a", "text": "x"}]}


def findings_case(work: Path, rng: random.Random) -> str:
    """Damaged ``score --findings F --rubrics R`` input."""
    from arena_gen.scoring.score import score_findings

    findings, rubrics = work / "findings.jsonl", work / "rubrics.json"
    good = dumps(GOOD_FINDING)
    if rng.random() < 0.6:
        findings.write_bytes(good + b"\n" + mutate_doc(GOOD_FINDING, rng)[0] + b"\n")
        rubrics.write_bytes(dumps(GOOD_RUBRICS))
    else:
        findings.write_bytes(good + b"\n")
        if rng.random() < 0.5:
            rubrics.write_bytes(mutate_doc(GOOD_RUBRICS, rng)[0])
        else:  # the JSONL form: task lines with a rubric
            rows = [{"id": "t1", "rubric": ["a", "b"]}, {"task_id": "t2", "rubric": ["a"]}]
            rubrics.write_bytes(b"\n".join(mutate_doc(r, rng)[0] if rng.random() < 0.5
                                           else dumps(r) for r in rows) + b"\n")
    return _expect_project_error(lambda: score_findings(findings, rubrics))


_PARTS = ["a", "..", ".", "sub", "x" * 300, "\udcff", "é", " ", "-", "--out", "a-file",
          "a-file/inside", "missing/deeper", "run", "summary.json", "~"]


def cli_case(work: Path, rng: random.Random) -> str:
    """A command with hostile paths for its outputs and inputs: no traceback, exit 0, 1 or 2."""
    import os

    from click.testing import CliRunner

    from arena_gen.cli import main

    (work / "a-file").write_text("x")
    base = _lite_tasks()["lights"]
    suite = write_suite_dir(work / "suite", "lights", canonical_line(base), base["id"],
                            base["sha256"])
    path = str(work / os.path.join(*(rng.choice(_PARTS) for _ in range(rng.randint(1, 3)))))
    if rng.random() < 0.1:
        path = rng.choice(_PARTS)  # relative to the working folder
    command = rng.choice(["run", "play", "score", "report", "import", "show", "verify"])
    args = {
        "run": ["run", "--suite", str(suite), "--agent", "random", "--out", path],
        "play": ["play", base["id"], "--suite", str(suite), "--out", path],
        "score": ["score", path],
        "report": ["report", str(work), "--html", path],
        "import": ["import", "odyssey-arena", str(work / "a-file"), "--out", path],
        "show": ["show", base["id"], "--suite", path],
        "verify": ["verify", path],
    }[command]
    if command in ("run", "score", "import", "verify"):
        args += ["--display", "none"]
    old = os.getcwd()
    os.chdir(work)
    try:
        result = CliRunner().invoke(main, args, input=":quit\n")
    finally:
        os.chdir(old)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    if result.exit_code not in (0, 1, 2):
        raise AssertionError(f"exit code {result.exit_code}: {result.output[-300:]}")
    return "ok" if result.exit_code == 0 else "error"


@functools.cache
def _signed_base() -> tuple[Path, bytes, bytes]:
    """A signing key made once per process, and a one-task suite signed with it: ``(public
    key, manifest bytes, .sig bytes)``."""
    import atexit
    import shutil
    import tempfile

    from arena_gen.core.signing import generate_key, sign_suite

    root = Path(tempfile.mkdtemp(prefix="fuzz-sign-"))
    atexit.register(shutil.rmtree, root, True)
    base = _lite_tasks()["lights"]
    folder = write_suite_dir(root / "suite", "lights", canonical_line(base), base["id"],
                             base["sha256"])
    generate_key(root / "key")
    sig = sign_suite(folder, root / "key")
    return root / "key.pub", (folder / "manifest.json").read_bytes(), sig.read_bytes()


def signature_case(work: Path, rng: random.Random) -> str:
    """A damaged ``manifest.json.sig`` (or, now and then, a damaged manifest under a good one):
    check it against the trusted key; a problem found counts as the project's error."""
    from arena_gen.core.signing import check_signature

    public, manifest, sig = _signed_base()
    base = _lite_tasks()["lights"]
    folder = write_suite_dir(work / "suite", "lights", canonical_line(base), base["id"],
                             base["sha256"])
    if rng.random() < 0.1:
        manifest = mutate_bytes(manifest, rng)
    else:
        sig, _ = mutate_doc(json.loads(sig), rng)
    (folder / "manifest.json").write_bytes(manifest)
    (folder / "manifest.json.sig").write_bytes(sig)
    problem: list[str | None] = []
    outcome = _expect_project_error(lambda: problem.append(check_signature(folder, public)))
    return "error" if outcome == "error" or problem[0] is not None else "ok"


#: Surfaces whose case takes ``env=`` (one env's documents only: ``bench_fuzz.py --env``).
PER_ENV = ("suite task lines", "importers (parse)", "importers (parse + verify)")

SURFACES: dict[str, Callable[[Path, random.Random], str]] = {
    "suite task lines": suite_task_case,
    "suite manifest": manifest_case,
    "importers (parse)": functools.partial(import_case, verify=False),
    "importers (parse + verify)": import_case,
    "run dirs": rundir_case,
    "findings and rubrics": findings_case,
    "CLI paths": cli_case,
    "suite signatures": signature_case,
}

# the bounded readers' and the LLM client's surfaces, and the forgery surfaces (#26), live in
# their own modules
from fuzz_bounded import BOUNDED_SURFACES  # noqa: E402
from fuzz_forgery import FORGERY_FIXTURES, FORGERY_SURFACES  # noqa: E402
from fuzz_substitution import SUBSTITUTION_FIXTURES, SUBSTITUTION_SURFACES  # noqa: E402

SURFACES.update(BOUNDED_SURFACES)
SURFACES.update(FORGERY_SURFACES)
SURFACES.update(SUBSTITUTION_SURFACES)
#: Fixtures a surface shares across its cases (made once, before any case is timed).
FIXTURES: dict[str, tuple[Callable[[], Any], ...]] = {**FORGERY_FIXTURES,
                                                      **SUBSTITUTION_FIXTURES}
