"""Run-directory integrity (#26): trajectories.jsonl is a hash chain from run.json's plan to its
head, one writer per folder (a lock), and hostile usage or malformed lines never give a
traceback."""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from chain_util import reseal
from hypothesis import given
from hypothesis import strategies as st

from arena_gen.agents.llm_client import parse_completion
from arena_gen.core.agent import Reply, TaskView
from arena_gen.core.episode import run_episode
from arena_gen.core.errors import ArenaGenError, SchemaError
from arena_gen.core.schema import validate_doc
from arena_gen.core.suite_io import read_suite
from arena_gen.core.usage import clean_usage
from arena_gen.runner import rundir as rundir_module
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import (
    PREV,
    ChainError,
    RunDir,
    is_typed_trajectory,
    line_digest,
    plan_digest,
)
from arena_gen.scoring.score import score_run

LITE = Path(__file__).resolve().parent.parent / "suites" / "lite"
TASKS = ["lights-lite-7-0000", "lights-lite-7-0001", "lights-lite-7-0002"]


def config(out: Path, **changes: Any) -> RunConfig:
    """The run these tests make: 3 lights tasks, 2 attempts each, the seeded random agent."""
    return RunConfig(**{"suite": str(LITE), "agent": "random", "attempts": 2, "out": str(out),
                        "tasks": TASKS, **changes})


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("chain") / "run"
    run_suite(config(out))
    return out, score_run(out)


@pytest.fixture()
def copy(honest: tuple[Path, dict[str, Any]], tmp_path: Path) -> Path:
    return Path(shutil.copytree(honest[0], tmp_path / "copy"))


def lines_of(run: Path) -> list[bytes]:
    return (run / "trajectories.jsonl").read_bytes().splitlines(keepends=True)


def put_lines(run: Path, lines: list[bytes]) -> None:
    (run / "trajectories.jsonl").write_bytes(b"".join(lines))


def meta_of(run: Path) -> dict[str, Any]:
    return json.loads((run / "run.json").read_text())


def put_meta(run: Path, meta: dict[str, Any]) -> None:
    (run / "run.json").write_text(json.dumps(meta, indent=2))


def test_each_line_holds_the_previous_lines_digest_and_run_json_the_head(
        honest: tuple[Path, dict[str, Any]]) -> None:
    run, summary = honest
    lines, meta = lines_of(run), meta_of(run)
    assert len(lines) == 6
    links = [json.loads(x)[PREV] for x in lines]
    assert links[0] == plan_digest(meta)
    assert links[1:] == [line_digest(x) for x in lines[:-1]]
    assert meta["chain"] == {"head": line_digest(lines[-1])}
    assert summary["integrity"] == "chained" and summary["complete"]
    assert summary["coverage"]["scored"] == 6
    assert PREV not in RunDir(run).records()[0]  # a link of the file, not of the episode


@pytest.mark.parametrize(("edit", "line"), [
    (lambda ls: [ls[0], *ls[2:]], 2),                          # a line deleted
    (lambda ls: [ls[0], ls[2], ls[1], *ls[3:]], 2),            # two lines swapped
    (lambda ls: [*ls[:2], ls[1], *ls[2:]], 3),                 # a line inserted (a copy)
    (lambda ls: [ls[1], *ls[1:]], 1),                          # the first line replaced
    (lambda ls: [ls[0], b"\n", *ls[1:]], 2),                   # a blank line inserted
])
def test_a_deleted_reordered_or_inserted_line_is_refused(copy: Path, edit: Any,
                                                          line: int) -> None:
    put_lines(copy, edit(lines_of(copy)))
    with pytest.raises(ChainError, match=rf"trajectories\.jsonl:{line}\b"):
        score_run(copy)


def test_an_edited_line_is_refused_at_the_line_after_it(copy: Path) -> None:
    lines = lines_of(copy)
    record = json.loads(lines[1])
    record["steps"] = 1  # what #26's forgery did (optimality 11.5)
    lines[1] = (json.dumps(record) + "\n").encode()
    put_lines(copy, lines)
    with pytest.raises(ChainError, match=r"trajectories\.jsonl:3, .*does not chain to line 2"):
        score_run(copy)


@pytest.mark.parametrize("damage", ["edit last", "delete last", "head"])
def test_a_head_that_is_not_the_last_lines_digest_is_refused(copy: Path, damage: str) -> None:
    lines, meta = lines_of(copy), meta_of(copy)
    if damage == "edit last":
        lines[-1] = lines[-1][:-1] + b" \n"  # the same JSON, other bytes
    elif damage == "delete last":
        lines = lines[:-1]
    else:
        meta["chain"]["head"] = "0" * 64
    put_lines(copy, lines)
    put_meta(copy, meta)
    with pytest.raises(ChainError, match=r"run\.json, at \$\.chain\.head: run\.json's chain "
                                         r"head is not the digest of the last line"):
        score_run(copy)


def test_an_edited_plan_in_run_json_breaks_the_chain(copy: Path) -> None:
    meta = meta_of(copy)
    meta["attempts"] = 1  # the failed second attempts would leave the plan
    put_meta(copy, meta)
    with pytest.raises(ChainError, match=r"trajectories\.jsonl:1, .*does not chain to run\.json"
                                         r"'s plan"):
        score_run(copy)


class Killed(BaseException):
    """A SIGKILL at one chosen point of a write (nothing after it runs)."""


def test_a_kill_between_the_line_and_the_head_resumes_and_scores(
        honest: tuple[Path, dict[str, Any]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed after the 3rd line is appended, before run.json records it as the head."""
    out = tmp_path / "killed"
    writes = {"n": 0}
    real = rundir_module.RunDir._write_chain

    def write_chain(self: RunDir, pending: str | None = None) -> None:
        if pending is None and self.trajectories.is_file() and \
                self.trajectories.read_bytes().count(b"\n") == 3 and writes["n"] == 0:
            writes["n"] += 1
            raise Killed
        real(self, pending)

    monkeypatch.setattr(rundir_module.RunDir, "_write_chain", write_chain)
    with pytest.raises(Killed):
        run_suite(config(out))
    monkeypatch.setattr(rundir_module.RunDir, "_write_chain", real)
    lines, chain = lines_of(out), meta_of(out)["chain"]
    assert len(lines) == 3 and chain == {"head": line_digest(lines[1]),
                                         "pending": line_digest(lines[2])}
    assert len(RunDir(out).records()) == 3  # the interrupted state reads back whole
    run_suite(config(out, resume=True))
    summary = score_run(out)
    assert summary["overall"] == honest[1]["overall"]
    assert meta_of(out)["chain"] == {"head": line_digest(lines_of(out)[-1])}


def test_resume_keeps_the_chain(honest: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out = tmp_path / "part"
    run_suite(config(out, tasks=TASKS[:1]))
    meta = meta_of(out)
    run_suite(config(out, resume=True, tasks=TASKS[:1]))  # nothing pending: re-finalized
    assert meta_of(out)["chain"] == meta["chain"]
    first = lines_of(out)
    # a run with its second attempt lost (an infra error) resumes onto the same chain
    record = json.loads(first[1])
    record.update(end_reason="infra_error", success=False)
    reseal(out, [json.loads(first[0]), record])
    run_suite(config(out, resume=True, tasks=TASKS[:1]))
    again = lines_of(out)
    assert len(again) == 2 and again[0] == first[0]  # the kept line, byte for byte
    assert json.loads(again[1])[PREV] == line_digest(first[0])
    assert meta_of(out)["chain"] == {"head": line_digest(again[1])}
    assert score_run(out)["complete"]


def test_a_run_without_a_chain_is_refused_unless_allowed(copy: Path) -> None:
    meta = meta_of(copy)
    del meta["chain"]
    put_meta(copy, meta)
    with pytest.raises(ChainError, match=r"trajectories\.jsonl:1, .*a chained line, but "
                                         r"run\.json records no chain head"):
        score_run(copy)
    records = [json.loads(x) for x in lines_of(copy)]
    put_lines(copy, [(json.dumps({k: v for k, v in r.items() if k != PREV}) + "\n").encode()
                     for r in records])  # as an older arena-gen wrote it
    with pytest.raises(ArenaGenError, match="records no trajectory chain .* pass "
                                            "--allow-unchained"):
        score_run(copy)
    summary = score_run(copy, allow_unchained=True)
    assert summary["integrity"] == "unchained" and summary["coverage"]["scored"] == 6
    assert "(unchained: trajectories.jsonl has no hash chain" in summary["coverage"]["text"]
    assert json.loads((copy / "summary.json").read_text())["integrity"] == "unchained"
    with pytest.raises(ArenaGenError, match="--resume refused: .* records no trajectory chain"):
        run_suite(config(copy, resume=True))


def test_a_second_writer_on_the_folder_is_refused_at_once(copy: Path) -> None:
    with RunDir(copy).locked():
        started = time.monotonic()
        with pytest.raises(ArenaGenError, match=r"is in use: another arena-gen run, --resume "
                                                r"or play is writing into it"):
            run_suite(config(copy, resume=True))
        assert time.monotonic() - started < 5  # refused, never waits
    run_suite(config(copy, resume=True))  # the lock is released with its holder


def test_a_new_run_that_writes_nothing_leaves_no_folder(tmp_path: Path) -> None:
    with pytest.raises(ArenaGenError, match="no task"):
        run_suite(config(tmp_path / "never", tasks=["lights-lite-7-9999"]))
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("field", ["end_reason", "env"])
def test_resume_over_a_line_lacking_a_field_names_file_and_line(copy: Path, field: str) -> None:
    records = [json.loads(x) for x in lines_of(copy)]
    del records[3][field]
    reseal(copy, records)  # a chain recomputed around the damage: the schema still refuses
    with pytest.raises(SchemaError, match=rf"trajectories\.jsonl:4, task {TASKS[1]}, at \$: "
                                          rf"'{field}' is a required property"):
        run_suite(config(copy, resume=True))
    with pytest.raises(SchemaError, match=r"trajectories\.jsonl:4"):
        score_run(copy)


class Claims:
    """An agent whose every reply claims ``usage`` (and plays action 1)."""

    name = "claims"

    def __init__(self, usage: dict[str, Any]) -> None:
        self.usage = usage

    def reset(self, view: TaskView, mode: str, rng: np.random.Generator) -> None:
        pass

    def act(self, observation: str) -> Reply:
        return Reply(action="1", tokens=dict(self.usage))


def test_an_infinite_usage_is_dropped_with_a_note_not_an_agent_error() -> None:
    _, _, usage, _ = parse_completion(b'{"choices": [{"message": {"content": "<action>1'
                                      b'</action>"}}], "usage": {"total_tokens": 1e400, '
                                      b'"prompt_tokens": 7, "completion_tokens": 2}}')
    assert usage is not None and usage["total_tokens"] == float("inf")
    task = read_suite(LITE).all_tasks()[0]
    record = run_episode(task, Claims(usage))
    assert record["end_reason"] not in ("agent_error", "env_error")
    assert record.get("error") is None
    turn = record["turns"][0]
    assert turn["tokens"] == {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}
    assert turn["usage_dropped"] == ["usage.total_tokens inf dropped: not a token count (a "
                                     "whole number from 0 to 100000000)"]


@pytest.mark.parametrize(("usage", "clean", "notes"), [
    ({"prompt_tokens": -5, "completion_tokens": 3}, {"completion_tokens": 3, "total_tokens": 3},
     1),
    ({"total_tokens": 1e-300}, None, 1),
    ({"total_tokens": 10 ** 30}, None, 1),
    ({"total_tokens": True, "prompt_tokens": 4.0}, {"prompt_tokens": 4, "total_tokens": 4}, 1),
    ({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 1},
     {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}, 1),
    ({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 20},
     {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 20}, 0),
])
def test_usage_that_is_no_count_is_dropped(usage: dict[str, Any], clean: dict[str, int] | None,
                                           notes: int) -> None:
    got, dropped = clean_usage(usage)
    assert got == clean and len(dropped) == notes


def test_negative_usage_in_a_line_never_makes_token_efficiency_negative(copy: Path) -> None:
    records = [json.loads(x) for x in lines_of(copy)]
    for r in records:
        for turn in r["turns"]:
            turn["tokens"] = {"prompt_tokens": -1000, "completion_tokens": 1,
                              "total_tokens": -999}
    reseal(copy, records)
    overall = score_run(copy)["overall"]
    turns = sum(len(r["turns"]) for r in records)
    assert overall["tokens"] == turns and overall["prompt_tokens"] == 0
    assert overall["completion_tokens"] == turns
    assert overall["token_efficiency"] is None or overall["token_efficiency"] >= 0


def test_a_run_reads_back_its_own_lines_without_the_schema_check_others_with_it(
        copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The end of a run read every line back through the JSON Schema twice (about 75 ms per
    120-turn line: 10 s at 64 episodes); lines this RunDir wrote from records the typed model
    accepts are only digest-checked, any other line (an earlier run's, on --resume) is
    schema-checked once, and an invalid record it was given is still refused on reading back."""
    checked: list[int | None] = []
    real = rundir_module.validate_doc
    monkeypatch.setattr(rundir_module, "validate_doc", lambda obj, kind, **kw: (
        checked.append(kw.get("line")), real(obj, kind, **kw))[1])
    run_suite(config(tmp_path / "fresh"))
    assert checked == []  # appended, finalized and read back: every line its own
    records = [json.loads(x) for x in lines_of(copy)]
    reseal(copy, records[:4])  # an interrupted run: 4 of 6 lines, from another process
    run_suite(config(copy, resume=True))
    assert checked == [1, 2, 3, 4]  # the resumed run's old lines only, once
    assert [json.loads(x)["attempt"] for x in lines_of(copy)] == [0, 1, 0, 1, 0, 1]
    bad = RunDir(tmp_path / "bad")
    bad.write_meta(meta_of(copy))
    record = {k: v for k, v in records[0].items() if k != PREV}
    bad.append({**record, "turns": [{**record["turns"][0], "turn": "1"}]})
    with pytest.raises(SchemaError, match=r"trajectories\.jsonl:1.*turns\[0\]\.turn"):
        bad.records()


@given(st.sampled_from(["steps", "success", "end_reason", "turns", "attempt", "budget",
                        "seconds", "task_id", "start_state"]),
       st.one_of(st.none(), st.booleans(), st.integers(-3, 10**7), st.floats(allow_nan=False),
                 st.text(max_size=5), st.lists(st.integers(0, 3), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)),
       st.sampled_from([None, "turn", "raw", "action", "valid", "reward", "tokens", "state"]))
def test_a_record_the_typed_model_accepts_is_schema_valid(field: str, value: Any,
                                                          turn_field: str | None) -> None:
    """The fast path above is sound: whatever one field of a real record is set to, a record
    ``is_typed_trajectory`` accepts passes the JSON Schema."""
    record = {k: v for k, v in json.loads(_first_line()).items() if k != PREV}
    if turn_field is None:
        record[field] = value
    else:
        record["turns"] = [{**record["turns"][0], turn_field: value}, *record["turns"][1:]]
    if is_typed_trajectory(record):
        validate_doc(record, "trajectory")


@functools.cache
def _first_line() -> bytes:
    out = Path(tempfile.mkdtemp()) / "run"
    run_suite(config(out, tasks=TASKS[:1], attempts=1))
    line = lines_of(out)[0]
    shutil.rmtree(out.parent)
    return line
