"""The report shows the judge's replay of a run, never an edited summary.json or findings.jsonl
(issue 41): edits are refused naming file and field, and hostile findings files are read
bounded, with a message in place of a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.scoring.report import build_report
from arena_gen.scoring.report_check import check_run, first_difference
from arena_gen.scoring.score import score_run
from arena_gen.suite.build import build_suite


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random agent's run on a four-task lights suite (it solves none), scored."""
    root = tmp_path_factory.mktemp("integrity")
    built = build_suite("lite", 7, ["lights"], counts={"lights": 4})
    suite = write_suite(root / "suite", built.manifest, built.tasks)
    out = root / "random"
    run_suite(RunConfig(suite=str(suite), agent="random", attempts=1, out=str(out)))
    score_run(out)
    return out


@pytest.fixture
def run(scored: Path, tmp_path: Path) -> Path:
    """A copy of the scored run whose files a test may edit (mtimes kept: not stale)."""
    return Path(shutil.copytree(scored, tmp_path / "run"))


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, " ".join(result.output.split())


def edit_json(path: Path, change: dict[str, object]) -> None:
    """Rewrite summary.json with ``change`` applied to its overall figures, mtime kept."""
    stat = path.stat()
    doc = json.loads(path.read_text())
    doc["overall"].update(change)
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_an_unedited_run_reports_its_replayed_figures(run: Path, tmp_path: Path) -> None:
    code, out = cli("report", run, "--html", tmp_path / "r.html")
    assert code == 0, out
    assert "scored" not in out  # neither stale nor edited: proved equal, not rescored
    assert check_run(run).summary["overall"]["success_rate"] == 0.0


def test_an_edited_summary_is_refused_naming_the_field(run: Path, tmp_path: Path) -> None:
    """The forgery of issue 41: 100 % success written into summary.json after score."""
    edit_json(run / "summary.json", {"success_rate": 100.0, "avg_at_k": 100.0})
    code, out = cli("report", run, "--html", tmp_path / "r.html")
    assert code == 1
    assert f"{run / 'summary.json'}, at $.overall.avg_at_k: 100.0 is not what the judge's " \
           "replay of the run gives (0.0)" in out
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(ArenaGenError, match=r"at \$\.overall\.avg_at_k"):
        build_report([run])


def test_an_edited_finding_is_refused_naming_line_and_field(run: Path, tmp_path: Path) -> None:
    path = run / "findings.jsonl"
    stat = path.stat()
    lines = path.read_text().splitlines()
    first = json.loads(lines[1])
    first["findings"][0]["status"] = "met"
    lines[1] = json.dumps(first, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    code, out = cli("report", run, "--html", tmp_path / "r.html")
    assert code == 1
    assert f"{path}:2, at $.findings[0].status: \"met\" is not what the judge's replay" in out


def test_a_removed_or_shortened_findings_file_is_refused(run: Path, tmp_path: Path) -> None:
    path = run / "findings.jsonl"
    path.write_text(path.read_text().splitlines(keepends=True)[0])
    code, out = cli("report", run, "--html", tmp_path / "r.html")
    assert code == 1 and f"{path}: 1 line(s), where the judge's replay of the run gives 4" in out
    path.unlink()
    code, out = cli("report", run, "--html", tmp_path / "r.html")
    assert code == 1 and f"{path}: missing beside summary.json" in out


def test_a_stale_summary_is_rescored_from_the_replay(run: Path, tmp_path: Path) -> None:
    """A summary older than the trajectories (a resumed run) is rescored, as before; an edit
    made then cannot survive it."""
    edit_json(run / "summary.json", {"success_rate": 100.0})
    os.utime(run / "summary.json", ns=(1, 1))
    code, out = cli("report", run, "--html", tmp_path / "r.html")
    assert code == 0 and f"scored {run}" in out
    assert json.loads((run / "summary.json").read_text())["overall"]["success_rate"] == 0.0


def test_a_2gb_sparse_findings_file_is_refused_unread(run: Path, tmp_path: Path) -> None:
    """Refused from its size before the replay, in a process whose peak memory stays small."""
    path = run / "findings.jsonl"
    with open(path, "r+b") as fh:
        fh.truncate(2 * 1024**3)
    # VmHWM is this process's own peak (ru_maxrss keeps the forking parent's across exec, so
    # under an xdist worker that has run heavy tests it reports the worker's size)
    probe = ("import re, sys\n"
             "from arena_gen.scoring.report_check import check_run\n"
             "try:\n    check_run(sys.argv[1])\n"
             "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
             "status = open('/proc/self/status').read()\n"
             "print(re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1))\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", probe, str(run)], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    said, peak_kib = done.stdout.rsplit("\n", 2)[:2]
    assert said.startswith(f"ArenaGenError {path}: 2147483648 bytes, where a findings")
    assert "refused unread" in said
    assert int(peak_kib) < 400 * 1024, peak_kib


@pytest.mark.parametrize("hostile", [b"[" * 100_000 + b"]" * 100_000,
                                     b'{"task_id": ' + b"7" * 10_000_000 + b"}"])
def test_deep_nesting_or_a_huge_number_is_a_message(run: Path, tmp_path: Path,
                                                    hostile: bytes) -> None:
    for name in ("findings.jsonl", "summary.json"):
        copy = Path(shutil.copytree(run, tmp_path / name))
        path = copy / name
        stat = path.stat()
        path.write_bytes(hostile + b"\n")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        code, out = cli("report", copy, "--html", tmp_path / "r.html")
        assert code == 1 and str(path) in out and "Traceback" not in out, out[:300]


def test_first_difference_names_paths() -> None:
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ("$.a[1].b", 2, 3)
    assert first_difference({"a": 1}, {"a": 1.0}) == ("$.a", 1, 1.0)
    assert first_difference([1], [1, 2]) == ("$.length", 1, 2)
    assert first_difference({"run": {"path": "x"}}, {"run": {"path": "y"}}) is None
