"""Fuzz surfaces of forged results (#26), registered into :data:`fuzz_surfaces.SURFACES`:
run-directory forgery (``score``) here, suite substitution (``verify``) in
``fuzz_substitution.py``.

A case starts from an honest artefact, forges it the ways issue 26 lists plus random structural
edits, and returns ``"error"`` when arena-gen refuses it with the project's error, ``"ok"`` when
it accepts it and the oracle finds nothing forged, and ``"forged"`` when a forged figure got
through:

- run dirs: ``score`` must refuse, or produce the figures of the *reference*, the honest run's
  lines for the attempts the forged run scored as played, with the forged lines' actions (a
  replay of recorded actions is what a score is; claims, labels and order are not). Token counts
  are the one recorded input by design (``scoring/score.py``) and are left out of the figures
  compared. A forged run may drop attempts only if it says it is incomplete.
- suites: ``verify`` (plain) must report a problem, or the suite's bytes must be the honest ones.
"""

from __future__ import annotations

import atexit
import copy
import functools
import hashlib
import json
import random
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from arena_gen.core.canon import canonical_json, sha256_of

Record = dict[str, Any]
Key = tuple[str, int]

# -- run-dir forgery -----------------------------------------------------------------------------
#: The honest run: a lights task the heuristic solves, one it fails, a trading task (profit
#: figures), 2 attempts each: 6 lines, about 0.3 s to score.
FORGERY_TASKS = ("lights-lite-7-0002", "lights-lite-7-0000", "trading-lite-7-0000")
#: A lite task in the suite but outside the honest run's plan (a line for it is "outside").
OUTSIDE_TASK = "lights-lite-7-0001"
#: Summary fields that are not figures of play: token counts (the recorded input).
NOT_COMPARED = {"tokens", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                "token_efficiency", "token_efficiency_basis", "metric_definitions"}


def _small_suite(folder: Path, ids: list[str]) -> Path:
    """The lite tasks ``ids`` (in lite order) as a suite folder, manifest recomputed."""
    from fuzz_surfaces import LITE  # imported here: fuzz_surfaces imports this module

    folder.mkdir(parents=True)
    manifest = json.loads((LITE / "manifest.json").read_bytes())
    tasks: dict[str, str] = {}
    counts: dict[str, int] = {}
    for env in ("lights", "trading", "energy", "repo"):
        with open(LITE / f"{env}.jsonl", "rb") as fh:
            lines = [line for line in fh if json.loads(line)["id"] in ids]
        if lines:
            (folder / f"{env}.jsonl").write_bytes(b"".join(lines))
            counts[env] = len(lines)
            tasks.update((d["id"], d["sha256"]) for d in map(json.loads, lines))
    manifest.update(counts=counts, tasks=tasks)
    manifest["suite_sha256"] = sha256_of(dict(sorted(tasks.items())))
    (folder / "manifest.json").write_text(canonical_json(manifest) + "\n")
    return folder


@functools.cache
def honest_run() -> tuple[Path, dict[str, Any], list[Record], dict[str, Any]]:
    """The honest run (made once per process): its suite folder, run.json, records (with
    their chain links) and the figures ``score`` gives it."""
    from arena_gen.runner.run import RunConfig, run_suite
    from arena_gen.runner.rundir import RunDir
    from arena_gen.scoring.score import score_run

    root = Path(tempfile.mkdtemp(prefix="fuzz-forgery-"))
    atexit.register(shutil.rmtree, root, True)
    suite = _small_suite(root / "suite", [*FORGERY_TASKS, OUTSIDE_TASK])
    out = root / "run"
    run_suite(RunConfig(suite=str(suite), agent="heuristic", attempts=2, out=str(out),
                        tasks=list(FORGERY_TASKS)))
    summary = score_run(out)
    meta = json.loads((out / "run.json").read_bytes())
    raw = [json.loads(x) for x in (out / "trajectories.jsonl").read_bytes().splitlines()]
    assert len(RunDir(out).records()) == len(raw) == 2 * len(FORGERY_TASKS)
    return suite, meta, raw, figures(summary)


def figures(summary: dict[str, Any]) -> dict[str, Any]:
    """The figures of a summary that replays must decide: every metric overall, per env and
    level, the curves and the coverage, without token counts (see :data:`NOT_COMPARED`)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in NOT_COMPARED}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    cov = summary.get("coverage") or {}
    return strip({"overall": summary["overall"], "envs": summary["envs"],
                  "curves": summary.get("curves"), "complete": summary.get("complete"),
                  "coverage": {k: cov.get(k) for k in ("planned", "scored", "complete")}})


def _actions(record: Record) -> list[Any]:
    return [t.get("action") if isinstance(t, dict) else t for t in record.get("turns") or []]


# The forgeries of issue 26, each an edit of (records, meta) in place.
def _pick(records: list[Record], rng: random.Random, pred: Callable[[Record], bool] | None = None
          ) -> Record | None:
    chosen = [r for r in records if pred is None or pred(r)]
    return rng.choice(chosen) if chosen else None


def _claim(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A claimed field rewritten: steps, success, end reason, final info, validity, budget."""
    rec = _pick(records, rng)
    if rec is None:
        return
    what = rng.choice(["steps", "success", "profit", "final_info", "valid", "budget",
                       "min_steps", "harness", "end_reason"])
    if what == "steps":
        rec["steps"] = rng.choice([0, 1, 2, len(rec.get("turns") or []) - 1, 999_999])
    elif what == "success":
        rec.update(success=True, end_reason="success")
        if rng.random() < 0.5:
            rec["steps"] = 1
    elif what == "profit":
        info = rec.setdefault("final_info", {})
        if isinstance(info, dict):
            info["profit_rate"] = rng.choice([5.0, 1e9, -0.99, 0.5])
            info["value"] = rng.choice([1e12, 50000.0 * 6])
    elif what == "final_info":
        rec["final_info"] = {"success": True, "solved": True, "profit_rate": 5.0, "lit": 99}
    elif what == "valid":
        for turn in rec.get("turns") or []:
            if isinstance(turn, dict) and rng.random() < 0.5:
                turn["valid"] = not turn.get("valid", True)
    elif what == "budget":
        rec["budget"] = rng.choice([1, 10, 999_999])
    elif what == "min_steps":
        rec["min_steps"] = rng.choice([1, 1000])
    elif what == "harness":
        rec["harness"] = rng.choice(["odyssey", "arena-gen", "x"])
    else:
        rec["end_reason"] = rng.choice(["success", "quit", "agent_error", "env_error", "budget"])


def _relabel_infra(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A failed attempt relabelled ``infra_error`` (excluded from the success rate)."""
    rec = _pick(records, rng, lambda r: not r.get("success")) or _pick(records, rng)
    if rec is not None:
        rec["end_reason"] = "infra_error"


def _delete(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A line deleted (a failure, mostly)."""
    if records:
        rec = _pick(records, rng, lambda r: not r.get("success")) if rng.random() < 0.7 else None
        records.remove(rec if rec is not None else rng.choice(records))


def _duplicate(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A line duplicated (a success, mostly), anywhere."""
    rec = _pick(records, rng, lambda r: bool(r.get("success"))) or _pick(records, rng)
    if rec is not None:
        records.insert(rng.randrange(len(records) + 1), copy.deepcopy(rec))


def _reorder(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """Lines swapped, or all shuffled."""
    if len(records) > 1:
        if rng.random() < 0.5:
            i, j = rng.sample(range(len(records)), 2)
            records[i], records[j] = records[j], records[i]
        else:
            rng.shuffle(records)


def _outside(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A line the plan does not hold: another attempt index, task, env, agent or mode, or a
    copy of a success relabelled as a planned key (replacing that key's line)."""
    src = _pick(records, rng, lambda r: bool(r.get("success"))) or _pick(records, rng)
    if src is None:
        return
    rec = copy.deepcopy(src)
    what = rng.choice(["attempt", "task", "env", "agent", "mode", "key"])
    if what == "attempt":
        rec["attempt"] = rng.choice([1, 2, 3, 19, 20, 10_000, -1])
    elif what == "task":
        rec["task_id"] = rng.choice([OUTSIDE_TASK, "trading-lite-7-0000", "lights-lite-7-0002",
                                     "repo-lite-7-0000", "lights-lite-99-0000"])
    elif what == "env":
        rec["env"] = rng.choice(["trading", "repo", "energy", "lights"])
    elif what == "agent":
        rec["agent"] = rng.choice(["oracle", "planner", "llm", "random", "heuristic"])
    elif what == "mode":
        rec["mode"] = rng.choice(["inductive", "with-rules"])
    else:  # the success's actions under a failed key (its own line removed)
        victim = _pick(records, rng, lambda r: not r.get("success"))
        if victim is None:
            return
        rec.update(task_id=victim["task_id"], attempt=victim["attempt"], env=victim["env"])
        records.remove(victim)
    records.insert(rng.randrange(len(records) + 1), rec)


def _structural(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A random structural edit of one line (a node replaced, dropped, duplicated)."""
    from fuzz_surfaces import mutate_one

    mutate_one(records, rng)


def _plan(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """run.json's plan edited: attempts, tasks, mode, agent, harness, seed."""
    what = rng.choice(["attempts", "tasks", "mode", "agent", "harness", "seed", "suite"])
    if what == "attempts":
        meta["attempts"] = rng.choice([1, 3, 20])
    elif what == "tasks":
        tasks = list(meta.get("tasks") or [])
        if tasks and rng.random() < 0.6:
            tasks.remove(rng.choice(tasks))
        else:
            tasks.append(rng.choice([OUTSIDE_TASK, "repo-lite-7-0000", tasks[0] if tasks
                                     else OUTSIDE_TASK]))
        meta["tasks"] = tasks
    elif what == "mode":
        meta["mode"] = "with-rules" if meta.get("mode") == "inductive" else "inductive"
    elif what == "agent":
        meta["agent"] = {"name": rng.choice(["oracle", "planner", "llm"]), "config": {}}
    elif what == "harness":
        meta["harness"] = rng.choice(["odyssey", "arena-gen"])
    elif what == "seed":
        meta["seed"] = rng.choice([0, 1, 2**40])
    else:
        meta["suite"] = rng.choice(["challenge", "lite", "odyssey-lite"])


def _meta_structural(records: list[Record], meta: dict[str, Any], rng: random.Random) -> None:
    """A random structural edit of run.json."""
    from fuzz_surfaces import mutate_tree

    tree = mutate_tree(meta, rng)
    if isinstance(tree, dict):
        meta.clear()
        meta.update(tree)


FORGERIES: list[Callable[[list[Record], dict[str, Any], random.Random], None]] = [
    _claim, _claim, _relabel_infra, _delete, _duplicate, _reorder, _outside, _outside,
    _structural, _structural, _plan, _meta_structural]


def _write_run(run: Path, records: list[Record], meta: dict[str, Any], rechain: bool,
               rng: random.Random) -> None:
    """The forged run on disk: re-chained from the (forged) plan as a forger who recomputes the
    digests would, or with the links the lines carry; sometimes a forged chain head."""
    from arena_gen.runner.rundir import PREV, chain_lines, line_digest, plan_digest, utf8_line

    run.mkdir(parents=True)
    data: bytes | None = None
    if rechain:
        try:
            data, head = chain_lines(records, plan_digest(meta))
            meta["chain"] = {"head": head}
        except (ValueError, TypeError, AttributeError):
            data = None
    if data is None:
        lines = []
        for rec in records:
            try:
                lines.append(utf8_line(rec))
            except (ValueError, TypeError):
                lines.append(json.dumps(rec).encode() + b"\n")
        data = b"".join(lines)
    roll = rng.random()
    if roll < 0.05:  # a head that is not the last line's
        meta["chain"] = {"head": rng.choice(["0" * 64, hashlib.sha256(b"x").hexdigest()])}
    elif roll < 0.1 and data:  # the head of the file without its last line, last line kept
        first = data.splitlines(keepends=True)
        meta["chain"] = {"head": line_digest(first[-2]) if len(first) > 1 else "f" * 64,
                         "pending": line_digest(first[-1]) if rng.random() < 0.5 else "a" * 64}
    elif roll < 0.12:
        meta.pop("chain", None)
    elif roll < 0.14 and records:  # a line whose link was edited by hand
        rec = json.loads(data.splitlines()[0])
        rec[PREV] = "0" * 64
        data = utf8_line(rec) + b"".join(data.splitlines(keepends=True)[1:])
    (run / "trajectories.jsonl").write_bytes(data)
    (run / "run.json").write_text(json.dumps(meta, indent=2, sort_keys=True))


def _reference(meta: dict[str, Any], forged: dict[Key, Record], scored: list[tuple[Key, bool]],
               strict: bool) -> dict[str, Any]:
    """The figures of the reference run: ``meta``'s plan (accepted), and for each key the forged
    run scored the honest line (or, for a key the honest run never played, an honest line of
    the same task or env) carrying the forged line's actions, or an infra error where the
    forged run has one (excluded, and the run marked incomplete)."""
    suite, honest_meta, raw, _ = honest_run()
    honest: dict[Key, Record] = {(r["task_id"], r["attempt"]): r for r in raw}
    records = []
    for key, infra in scored:
        rec = forged[key]
        template = honest.get(key) or next(
            (r for r in raw if r["task_id"] == key[0]), None) or next(
            (r for r in raw if r["env"] == rec.get("env")), raw[0])
        turns = list(template["turns"]) or [{"turn": 1, "action": ""}]
        ref_turns = [dict(turns[min(i, len(turns) - 1)], turn=i + 1, action=action)
                     for i, action in enumerate(_actions(rec))]
        records.append({**{k: v for k, v in template.items() if k != "prev"},
                        "task_id": key[0], "attempt": key[1], "env": rec.get("env"),
                        "agent": rec.get("agent"), "mode": rec.get("mode"), "turns": ref_turns,
                        **({"end_reason": "infra_error"} if infra else {})})
    return _score_cached(canonical_json({k: v for k, v in meta.items() if k != "chain"}),
                         canonical_json(records), strict)


@functools.lru_cache(maxsize=256)
def _score_cached(meta_json: str, records_json: str, strict: bool) -> dict[str, Any]:
    from arena_gen.runner.rundir import chain_lines, plan_digest
    from arena_gen.scoring.score import score_run

    meta, records = json.loads(meta_json), json.loads(records_json)
    with tempfile.TemporaryDirectory(prefix="fuzz-ref-") as tmp:
        run = Path(tmp) / "run"
        run.mkdir()
        data, head = chain_lines(records, plan_digest(meta))
        (run / "trajectories.jsonl").write_bytes(data)
        (run / "run.json").write_text(json.dumps({**meta, "chain": {"head": head}}))
        return figures(score_run(run, strict=strict))


#: What the last forged case let through (for the benchmark's report of a "forged" case).
LAST_FORGED: dict[str, Any] = {}


def _differences(a: Any, b: Any, path: str = "$") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b))
                for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    return [] if a == b else [f"{path}: {a!r} (reference {b!r})"]


@contextmanager
def _honest_suite_read_once() -> Iterator[None]:
    """``score`` reads the honest suite from a cache, and schema-checks a trajectory line it
    has seen pass before from a memo (neither is what this surface forges, and the two were
    three quarters of a case's time); any other suite path, and every new line, is read and
    checked as usual."""
    from arena_gen.runner import rundir
    from arena_gen.scoring import score

    suite = honest_run()[0]
    real_read, real_validate = score.read_suite, rundir.validate_doc

    def read(path: Any, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs and str(path) == str(suite):
            return _read_honest_suite()
        return real_read(path, *args, **kwargs)

    def validate(obj: Any, kind: str, **where: Any) -> None:
        # a line's link is any 64-hex digest to the schema: lines that differ only in it (a
        # re-chained honest line) share one memo entry
        keyed = obj
        if isinstance(obj, dict) and _HEX64.fullmatch(str(obj.get(rundir.PREV, ""))):
            keyed = {**obj, rundir.PREV: "0" * 64}
        try:
            key = hashlib.sha256(json.dumps([kind, keyed], sort_keys=True).encode(
                "utf-8", "surrogatepass")).hexdigest()
        except (ValueError, TypeError):
            key = None
        if key is not None and key in _VALID_LINES:
            return
        real_validate(obj, kind, **where)
        if key is not None:
            _VALID_LINES.add(key)

    with mock.patch.object(score, "read_suite", read), \
            mock.patch.object(rundir, "validate_doc", validate):
        yield


#: Trajectory lines (the sha256 of their sorted JSON) the schema accepted in this process.
_VALID_LINES: set[str] = set()
_HEX64 = re.compile("[0-9a-f]{64}")


@functools.cache
def _read_honest_suite() -> Any:
    from arena_gen.core.suite_io import read_suite

    return read_suite(honest_run()[0])


def run_forgery_case(work: Path, rng: random.Random) -> str:
    """A forged copy of the honest run (issue 26's edits, random structural ones; re-chained
    80 % of the time): ``score`` refuses it, or its figures are the reference's."""
    suite, honest_meta, raw, _ = honest_run()
    records, meta = json.loads(json.dumps([raw, honest_meta]))  # a deep copy, 5x faster
    ops = [rng.choice(FORGERIES) for _ in range(rng.randint(1, 3))]
    for op in ops:
        try:
            op(records, meta, rng)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError,
                RecursionError):
            pass  # an earlier structural edit left nothing this forgery can edit
    rechain = rng.random() < 0.8
    run = work / "run"
    _write_run(run, records, meta, rechain, rng)
    strict = rng.random() < 0.2
    outcome, diff = judge_forged_run(run, strict)
    if outcome == "forged":
        LAST_FORGED.clear()
        LAST_FORGED.update(ops=[op.__name__ for op in ops], rechain=rechain, strict=strict,
                           differences=diff[:5])
    return outcome


def judge_forged_run(run: Path, strict: bool = False) -> tuple[str, list[str]]:
    """Score a (forged) run folder whose suite is the honest one: ``"error"`` when ``score``
    refuses it with the project's error, else ``"ok"`` or ``"forged"`` as its figures are the
    reference's or not, and the differences."""
    from fuzz_surfaces import _expect_project_error

    from arena_gen.scoring.score import score_run

    summary: dict[str, Any] = {}
    with _honest_suite_read_once():
        if _expect_project_error(lambda: summary.update(score_run(run, strict=strict))
                                 ) == "error":
            return "error", []
        return _compare(run, summary, strict)


def _compare(run: Path, summary: dict[str, Any], strict: bool) -> tuple[str, list[str]]:
    """:func:`judge_forged_run`'s oracle on an accepted run."""
    findings = [json.loads(x) for x in (run / "findings.jsonl").read_bytes().splitlines()]
    scored = [((f["task_id"], f["attempt"]), bool(f["flags"]["infra_error"])) for f in findings]
    kept: dict[Key, Record] = {}
    for line in (run / "trajectories.jsonl").read_bytes().splitlines():  # accepted: valid
        if line.strip():
            rec = json.loads(line)
            kept[(rec["task_id"], int(rec["attempt"]))] = rec  # score keeps the last per key
    accepted = json.loads((run / "run.json").read_bytes())
    diff = _differences(figures(summary), _reference(accepted, kept, scored, strict))
    return ("forged" if diff else "ok"), diff


FORGERY_SURFACES: dict[str, Callable[[Path, random.Random], str]] = {
    "run-dir forgery (score)": run_forgery_case,
}
#: What each surface makes once before its first case (an honest run takes seconds).
FORGERY_FIXTURES: dict[str, tuple[Callable[[], Any], ...]] = {
    "run-dir forgery (score)": (honest_run, _read_honest_suite),
}
