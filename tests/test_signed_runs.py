"""Signed runs (issue 41): ``run --sign-key`` signs the plan, suite and chain head as the run is
written, and ``score``/``report --public-key`` refuse every recomputed-chain forgery."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from chain_util import reseal
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.run_signature import RUN_SIGNATURE
from arena_gen.core.signing import generate_key
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite

pytest.importorskip("cryptography")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A key, a four-task lights suite and a three-task one with the same ids, a signed random
    run (it solves nothing) and an unsigned oracle run whose actions a forger copies."""
    root = tmp_path_factory.mktemp("signed")
    generate_key(root / "key")
    generate_key(root / "other")
    out = {"root": root, "key": root / "key", "pub": root / "key.pub",
           "other_pub": root / "other.pub"}
    for name, n in (("suite", 4), ("small", 3)):
        built = build_suite("lite", 7, ["lights"], counts={"lights": n})
        out[name] = write_suite(root / name, built.manifest, built.tasks)
    out["signed"] = run_suite(RunConfig(suite=str(out["suite"]), agent="random",
                                        out=str(root / "signed"),
                                        sign_key=str(out["key"]))).path
    out["oracle"] = run_suite(RunConfig(suite=str(out["suite"]), agent="oracle",
                                        out=str(root / "oracle"))).path
    return out


def lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "trajectories.jsonl").read_text().splitlines()]


def copy(world: dict[str, Path], tmp_path: Path) -> Path:
    return Path(shutil.copytree(world["signed"], tmp_path / "run"))


def refused(run: Path, pub: Path, match: str) -> None:
    with pytest.raises(ArenaGenError, match=match):
        score_run(run, public_key=pub)


def test_an_honest_signed_run_scores_under_its_key(world: dict[str, Path]) -> None:
    doc = json.loads((world["signed"] / RUN_SIGNATURE).read_text())
    assert set(doc) >= {"plan", "suite_sha256", "head", "signature", "key_id"}
    assert "pending" not in doc  # the run ended: only its final head
    assert score_run(world["signed"], public_key=world["pub"]) == score_run(world["signed"])
    refused(world["signed"], world["other_pub"], "not by the given key")


def test_oracle_actions_under_the_runs_agent_name_are_refused(world: dict[str, Path],
                                                             tmp_path: Path) -> None:
    run = copy(world, tmp_path)
    oracle = {r["task_id"]: r for r in lines(world["oracle"])}
    forged = [{**r, "turns": oracle[r["task_id"]]["turns"]} for r in lines(run)]
    reseal(run, forged)  # the chain recomputed: score without a key accepts the forgery
    assert score_run(run)["overall"]["success_rate"] == 100.0
    assert score_run(world["signed"])["overall"]["success_rate"] == 0.0
    refused(run, world["pub"], r"at \$\.head: the signed chain head is not the digest")


def test_the_plan_shrunk_to_solved_tasks_is_refused(world: dict[str, Path],
                                                    tmp_path: Path) -> None:
    run = copy(world, tmp_path)
    meta = json.loads((run / "run.json").read_text())
    keep = meta["tasks"][:1]
    meta["tasks"], meta["budgets"] = keep, {k: meta["budgets"][k] for k in keep}
    (run / "run.json").write_text(json.dumps(meta))
    reseal(run, [r for r in lines(run) if r["task_id"] in keep])
    assert score_run(run)["coverage"]["planned"] == 1  # accepted unsigned
    refused(run, world["pub"], r"at \$\.plan: the signed plan is not the one in run.json")


def test_the_run_pointed_at_another_suite_is_refused(world: dict[str, Path],
                                                     tmp_path: Path) -> None:
    run = copy(world, tmp_path)
    meta = json.loads((run / "run.json").read_text())
    small = json.loads((world["small"] / "manifest.json").read_text())
    meta["tasks"] = [t for t in meta["tasks"] if t in small["tasks"]]
    meta["budgets"] = {k: v for k, v in meta["budgets"].items() if k in meta["tasks"]}
    meta["suite_path"], meta["suite_sha256"] = str(world["small"]), small["suite_sha256"]
    (run / "run.json").write_text(json.dumps(meta))
    reseal(run, [r for r in lines(run) if r["task_id"] in meta["tasks"]])
    score_run(run)  # accepted unsigned
    refused(run, world["pub"], r"at \$\.plan")
    # the signature's own suite field, were the plan check bypassed, names the suite too
    from arena_gen.core.run_signature import check_run_signature
    from arena_gen.runner.rundir import plan_digest

    doc = json.loads((world["signed"] / RUN_SIGNATURE).read_text())
    original = json.loads((world["signed"] / "run.json").read_text())
    with pytest.raises(ArenaGenError, match=r"at \$\.suite_sha256: the run was signed on"):
        check_run_signature(world["signed"], world["pub"], plan_digest(original),
                            small["suite_sha256"], doc["head"])


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.update(head="0" * 64), r"at \$\.signature: does not verify"),
    (lambda d: d.update(public_key=d["public_key"][:-4] + "AAA="), "not by the given key"),
    (lambda d: d.update(kind="arena-gen-suite"), r"at \$\.kind"),
])
def test_an_edited_signature_file_is_refused(world: dict[str, Path], tmp_path: Path,
                                             edit: Any, match: str) -> None:
    run = copy(world, tmp_path)
    doc = json.loads((run / RUN_SIGNATURE).read_text())
    edit(doc)
    (run / RUN_SIGNATURE).write_text(json.dumps(doc))
    refused(run, world["pub"], match)


def test_cli_score_and_report_refuse_an_unsigned_run(world: dict[str, Path],
                                                     tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["score", str(world["oracle"]), "--public-key",
                                  str(world["pub"]), "--display", "plain"])
    assert result.exit_code == 1 and "missing: the run is not signed" in result.output
    result = runner.invoke(main, ["report", str(world["oracle"]), "--public-key",
                                  str(world["pub"]), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 1 and "missing: the run is not signed" in result.output
    result = runner.invoke(main, ["report", str(world["signed"]), "--public-key",
                                  str(world["pub"]), "--html", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output


def test_resume_keeps_the_signature_honest(world: dict[str, Path], tmp_path: Path) -> None:
    """A signed run resumes only with its key, and never signs over lines edited meanwhile."""
    run = copy(world, tmp_path)
    cfg = RunConfig(suite=str(world["suite"]), agent="random", out=str(run), resume=True)
    with pytest.raises(ArenaGenError, match="is a signed run"):
        run_suite(cfg)
    oracle = {r["task_id"]: r for r in lines(world["oracle"])}
    reseal(run, [{**r, "turns": oracle[r["task_id"]]["turns"]} for r in lines(run)])
    cfg.sign_key = str(world["key"])
    with pytest.raises(ArenaGenError, match=r"at \$\.head"):
        run_suite(cfg)
    fresh = copy(world, tmp_path / "b")
    cfg.out = str(fresh)
    run_suite(cfg)  # an untouched signed run resumes and stays signed
    score_run(fresh, public_key=world["pub"])


def test_a_world_readable_private_key_is_refused(world: dict[str, Path], tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_bytes(world["key"].read_bytes())
    key.chmod(0o644)
    with pytest.raises(ArenaGenError, match="permissions 0644 are too open.*chmod 600"):
        run_suite(RunConfig(suite=str(world["suite"]), agent="random", out=str(tmp_path / "r"),
                            sign_key=str(key)))
    assert not (tmp_path / "r").exists()


def test_a_hostile_task_id_is_printed_escaped_and_bounded(world: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """Issue 41: a 15 MB task id with terminal escapes was printed whole."""
    run = Path(shutil.copytree(world["oracle"], tmp_path / "run"))
    records = lines(run)
    records[0]["task_id"] = "\x1b[2J\x1b]0;pwned\x07" + "A" * 15_000_000
    reseal(run, records)
    result = CliRunner().invoke(main, ["score", str(run), "--display", "plain"])
    assert result.exit_code == 1
    assert len(result.output) < 5000 and "\x1b" not in result.output, result.output[:300]
    assert "task \\x1b[2J\\x1b]0;pwned\\x07AAA" in result.output
    assert "characters cut]" in result.output


def test_play_refuses_a_signed_run_folder(world: dict[str, Path], tmp_path: Path) -> None:
    from arena_gen.agents.registry import make_agent
    from arena_gen.core.suite_io import read_suite
    from arena_gen.runner.play import play_task

    run = copy(world, tmp_path)
    suite = read_suite(world["suite"])
    task = suite.all_tasks()[0]
    with pytest.raises(ArenaGenError, match="is a signed run"):
        play_task(task, make_agent("random", task.env, None, task.env_version),
                  manifest=suite.manifest, suite_path=suite.path, out=run)


class Killed(BaseException):
    """A SIGKILL stand-in: nothing in arena-gen catches it."""


def test_a_kill_between_the_line_and_its_head_still_verifies(
        world: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The signature is written before run.json at every step, so a run killed after a line
    and before its head verifies under the key, and resumes signed."""
    from arena_gen.runner.rundir import RunDir

    real = RunDir._write_chain
    seen: list[str | None] = []

    def write_chain(self: RunDir, pending: str | None = None) -> None:
        if pending is None and seen and seen[-1] is not None:  # the head after a line
            raise Killed
        seen.append(pending)
        real(self, pending)

    monkeypatch.setattr(RunDir, "_write_chain", write_chain)
    out = tmp_path / "killed"
    cfg = RunConfig(suite=str(world["suite"]), agent="random", out=str(out),
                    sign_key=str(world["key"]))
    with pytest.raises(Killed):
        run_suite(cfg)
    monkeypatch.setattr(RunDir, "_write_chain", real)
    assert len(lines(out)) == 1
    assert "pending" in json.loads((out / RUN_SIGNATURE).read_text())
    summary = score_run(out, public_key=world["pub"])
    assert summary["coverage"]["scored"] == 1 and not summary["complete"]
    cfg.resume = True
    run_suite(cfg)
    assert score_run(out, public_key=world["pub"])["complete"]
