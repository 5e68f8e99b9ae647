"""Bounded readers of untrusted files (#26): a FIFO or device is refused without blocking, a
sparse or padded file is refused from its size, a line over the cap is never held whole, and
the peak memory of ``score`` and ``verify`` on such inputs stays under 500 MB; import is
bounded in time and refuses entries of 1e300."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import SHARED

from arena_gen.cli import main
from arena_gen.core.bounded_io import iter_lines, open_regular, read_bounded
from arena_gen.core.errors import SchemaError
from arena_gen.core.signing import generate_key, sign_suite
from arena_gen.core.suite_io import SIGNATURE, read_suite, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.suite.build import build_suite

MiB = 1 << 20
TRADING = SHARED / "reference-data" / "odyssey-arena" / "trading" / "test_trade_config_1.json"


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small suite (2 lights tasks)."""
    built = build_suite("lite", 7, ["lights"], counts={"lights": 2})
    return write_suite(tmp_path_factory.mktemp("plain") / "suite", built.manifest, built.tasks)


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("keys")
    generate_key(folder / "k")
    return folder


@pytest.fixture(scope="module")
def played(plain: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished random-agent run over the small suite."""
    out = tmp_path_factory.mktemp("run") / "run"
    run_suite(RunConfig(suite=str(plain), agent="random", out=str(out)))
    return out


def copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def unblock(fifos: list[Path]) -> None:
    """Open each FIFO's write end (then close it), so a reader stuck in open() returns."""
    for fifo in fifos:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass


def invoke_bounded(args: list[str], fifos: list[Path], seconds: float = 60) -> Result:
    """Run the CLI in a thread; a hang past ``seconds`` is unblocked and fails the test."""
    box: dict[str, Result] = {}
    thread = threading.Thread(target=lambda: box.update(r=CliRunner().invoke(main, args)))
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        unblock(fifos)
        thread.join(10)
        pytest.fail(f"arena-gen {' '.join(args[:2])} blocked on a FIFO for {seconds} s")
    return box["r"]


def assert_refused(result: Result, named: Path, says: str) -> None:
    """Exit 1 with the project's one-line error naming the file: no traceback."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert str(named) in result.output and says in result.output, result.output


# -- regular files only --------------------------------------------------------------------------
def test_open_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    box: dict[str, BaseException] = {}

    def read() -> None:
        try:
            open_regular(fifo, "the pipe")
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            box["e"] = exc

    thread = threading.Thread(target=read)
    thread.start()
    thread.join(10)
    if thread.is_alive():
        unblock([fifo])
        pytest.fail("open_regular blocked on a FIFO")
    assert isinstance(box["e"], SchemaError)
    assert str(box["e"]) == (f"{fifo}, at $: cannot read the pipe: it is a FIFO (named pipe), "
                             f"not a regular file (refused without waiting on it)")


def test_a_character_device_is_refused() -> None:
    with pytest.raises(SchemaError, match="a character device"):
        read_bounded("/dev/zero")


Surface = Callable[[Path, Path, Path, Path], tuple[list[str], Path]]


def _sig(fifo: Path, suite: Path, keys: Path, run: Path) -> tuple[list[str], Path]:
    sign_suite(suite, keys / "k")
    (suite / SIGNATURE).unlink()
    os.mkfifo(suite / SIGNATURE)
    return ["verify", str(suite), "--public-key", str(keys / "k.pub")], suite / SIGNATURE


SURFACES: dict[str, Surface] = {
    "manifest.json.sig": _sig,
    "--public-key": lambda f, s, k, r: (["verify", str(s), "--public-key", str(f)], f),
    "--signature-file": lambda f, s, k, r: (
        ["verify", str(s), "--public-key", str(k / "k.pub"), "--signature-file", str(f)], f),
    "sign --key": lambda f, s, k, r: (["sign", str(s), "--key", str(f)], f),
    "import FILE": lambda f, s, k, r: (
        ["import", "odyssey-arena", str(f), "--out", str(f.parent / "imported")], f),
    "score --findings": lambda f, s, k, r: (
        ["score", "--findings", str(f), "--rubrics", str(s / "lights.jsonl")], f),
    "score --rubrics": lambda f, s, k, r: (
        ["score", "--findings", str(r / "findings.jsonl"), "--rubrics", str(f)], f),
    "trajectories.jsonl": lambda f, s, k, r: (
        ["score", str(_swap(r / "trajectories.jsonl")), "--suite", str(s)],
        r / "trajectories.jsonl"),
}


def _swap(file: Path) -> Path:
    """Replace ``file`` by a FIFO; return its run folder."""
    file.unlink()
    os.mkfifo(file)
    return file.parent


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_a_fifo_on_every_surface_is_refused_without_blocking(
        surface: str, plain: Path, keys: Path, played: Path, tmp_path: Path) -> None:
    """Each of these blocked forever when given a FIFO."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    suite = copy(plain, tmp_path / "suite")
    run = copy(played, tmp_path / "run")
    if surface == "score --rubrics":
        CliRunner().invoke(main, ["score", str(run), "--suite", str(suite)])
    args, named = SURFACES[surface](fifo, suite, keys, run)
    result = invoke_bounded(args, [fifo, named])
    assert_refused(result, named, "it is a FIFO (named pipe), not a regular file")


# -- sizes and lines -----------------------------------------------------------------------------
def sparse(path: Path, size: int) -> None:
    """Make ``path`` a sparse file of ``size`` bytes (no disk used)."""
    path.unlink(missing_ok=True)
    with open(path, "wb") as fh:
        fh.truncate(size)


def test_sparse_two_gigabyte_task_file_is_refused_from_its_size(plain: Path,
                                                                 tmp_path: Path) -> None:
    suite = copy(plain, tmp_path / "suite")
    sparse(suite / "lights.jsonl", 2 << 30)
    with pytest.raises(SchemaError, match=r"lights.jsonl, at \$: larger than 536870912 bytes; "
                                          r"refused \(\$ARENA_GEN_MAX_FILE_BYTES raises"):
        read_suite(suite)


def test_sparse_trajectories_are_refused_by_score(plain: Path, played: Path,
                                                  tmp_path: Path) -> None:
    run = copy(played, tmp_path / "run")
    sparse(run / "trajectories.jsonl", 2 << 30)
    result = CliRunner().invoke(main, ["score", str(run), "--suite", str(plain)])
    assert_refused(result, run / "trajectories.jsonl", "larger than 536870912 bytes")


def test_padded_run_json_is_refused(plain: Path, played: Path, tmp_path: Path) -> None:
    """run.json padded with 17 MiB of blanks is valid JSON; it was read whole (2 GB at 1 GB)."""
    run = copy(played, tmp_path / "run")
    with open(run / "run.json", "ab") as fh:
        fh.write(b" " * (17 * MiB))
    result = CliRunner().invoke(main, ["score", str(run), "--suite", str(plain)])
    assert_refused(result, run / "run.json", "larger than 16777216 bytes; refused "
                                             "($ARENA_GEN_MAX_LINE_BYTES raises the cap)")


def test_blank_task_line_over_the_cap_is_refused_naming_its_line(
        plain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = copy(plain, tmp_path / "suite")
    with open(suite / "lights.jsonl", "ab") as fh:
        fh.write(b" " * (3 * MiB) + b"\n")
    monkeypatch.setenv("ARENA_GEN_MAX_LINE_BYTES", str(MiB))
    with pytest.raises(SchemaError, match=r"lights.jsonl:3, at \$: line longer than 1048576 "
                                          r"bytes"):
        read_suite(suite)


def test_trajectory_line_over_the_cap_is_skipped_with_a_warning(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = copy(played, tmp_path / "run")
    records = RunDir(run).records()
    with open(run / "trajectories.jsonl", "ab") as fh:
        fh.write(b" " * (3 * MiB) + b"\n")
    monkeypatch.setenv("ARENA_GEN_MAX_LINE_BYTES", str(MiB))
    with pytest.warns(UserWarning, match=r"trajectories.jsonl:3: longer than 1048576 bytes"):
        assert RunDir(run).records() == records


def test_iter_lines_cap_is_exact(tmp_path: Path) -> None:
    file = tmp_path / "f.jsonl"
    file.write_bytes(b"a" * 8 + b"\n" + b"b" * 3 + b"\n" + b"tail")
    assert list(iter_lines(file, max_line=8)) == [(1, b"a" * 8 + b"\n"), (2, b"bbb\n"),
                                                  (3, b"tail")]
    with pytest.raises(SchemaError, match=r"f.jsonl:1, at \$: line longer than 7 bytes"):
        list(iter_lines(file, max_line=7))
    skipped: list[int] = []
    assert list(iter_lines(file, max_line=7, on_overlong=skipped.append)) == [
        (2, b"bbb\n"), (3, b"tail")]
    assert skipped == [1]
    with pytest.raises(SchemaError, match="larger than 10 bytes"):
        list(iter_lines(file, max_file=10))


def test_caps_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "doc.json"
    file.write_bytes(b"{}" + b" " * 100)
    monkeypatch.setenv("ARENA_GEN_MAX_LINE_BYTES", "50")
    with pytest.raises(SchemaError, match="larger than 50 bytes"):
        read_bounded(file)
    monkeypatch.setenv("ARENA_GEN_MAX_LINE_BYTES", "many")
    with pytest.raises(SchemaError, match="ARENA_GEN_MAX_LINE_BYTES is 'many'"):
        read_bounded(file)


# -- peak memory ---------------------------------------------------------------------------------
# The peak of this process's own memory: Linux's VmHWM (reset by exec), not ru_maxrss, which
# keeps the high-water mark of the process that forked it (a big pytest worker's) across exec.
PEAK = """
import resource, sys
from arena_gen.cli import main
def peak_kb():
    try:
        with open("/proc/self/status") as fh:
            return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    main(sys.argv[1:])
finally:
    print("PEAK_KB", peak_kb(), file=sys.stderr)
"""


def peak_mb(args: list[str]) -> tuple[float, str]:
    """Peak resident memory (MB) of one ``arena-gen`` command in a fresh process, and its
    output."""
    done = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True,
                          timeout=300, check=False)
    kb = int(done.stderr.rsplit("PEAK_KB", 1)[1].split()[0])
    return kb / 1024, done.stdout + done.stderr


def test_peak_memory_of_score_and_verify_on_adversarial_inputs(plain: Path, played: Path,
                                                               tmp_path: Path) -> None:
    """score took 4.1 GB on a sparse 2 GB file and 2.0 GB on a padded run.json; verify 3.1 GB
    on a sparse 1.5 GB lights.jsonl. Now each is refused in bounded memory."""
    suite = copy(plain, tmp_path / "suite")
    sparse(suite / "lights.jsonl", 3 << 29)
    mb, out = peak_mb(["verify", str(suite), "--jobs", "1", "--display", "plain"])
    assert mb < 500 and "larger than 536870912 bytes" in out, (mb, out)
    run = copy(played, tmp_path / "sparse-run")
    sparse(run / "trajectories.jsonl", 2 << 30)
    mb, out = peak_mb(["score", str(run), "--suite", str(plain)])
    assert mb < 500 and "larger than 536870912 bytes" in out, (mb, out)
    run = copy(played, tmp_path / "blank-run")
    with open(run / "trajectories.jsonl", "ab") as fh:
        fh.write(b" " * (64 * MiB) + b"\n")
    mb, out = peak_mb(["score", str(run), "--suite", str(plain)])
    assert mb < 500 and "longer than 16777216 bytes" in out, (mb, out)


def _bulky_run(played: Path, run: Path, lines: int, raw: int, *, planned: bool = False
               ) -> tuple[Path, int]:
    """A chained copy of the played run whose ``lines`` lines are its first episode again, each
    with a ``raw`` reply of ``raw`` bytes in its first turn (``planned``: run.json plans exactly
    those attempts, and the other turns are kept); returns the run and the file's size."""
    from arena_gen.runner.rundir import PREV, chain_lines, plan_digest

    copy(played, run)
    meta = json.loads((run / "run.json").read_bytes())
    first = {k: v for k, v in json.loads(
        (run / "trajectories.jsonl").read_bytes().splitlines()[0]).items() if k != PREV}
    if planned:
        meta = {**meta, "tasks": [first["task_id"]], "attempts": lines}
    rest = first["turns"][1:] if planned else []
    bulky = [{**first, "attempt": i, "turns": [dict(first["turns"][0], raw="x" * raw), *rest]}
             for i in range(lines)]
    data, head = chain_lines(bulky, plan_digest(meta))
    (run / "trajectories.jsonl").write_bytes(data)
    (run / "run.json").write_text(json.dumps({**meta, "chain": {"head": head}}))
    return run, len(data)


def _traced_peak(call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()``'s result and the peak of Python's traced memory while it ran."""
    import tracemalloc

    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_chained_lines_are_read_one_at_a_time(played: Path, tmp_path: Path) -> None:
    """score held every raw line of trajectories.jsonl beside its decoded record: 16 lines of
    15 MB (240 MB, under every cap) took 545 MB. The raw bytes are now dropped line by line, so
    reading costs about the decoded records alone (here 4 lines of 6 MiB)."""
    run, size = _bulky_run(played, tmp_path / "big-lines", 4, 6 * MiB)
    records, peak = _traced_peak(RunDir(run).numbered_records)
    assert [r["attempt"] for _, r in records] == [0, 1, 2, 3]
    # 2.25 x the file before (every raw line and every record), 1.5 x after (the records and
    # the line being decoded)
    assert peak < 1.75 * size, (peak / MiB, size / MiB)


def test_score_holds_one_line_at_a_time(played: Path, tmp_path: Path) -> None:
    """score kept every decoded record until the run was judged: 34 planned lines of 15 MB
    (510 MB, under every default cap) took 593 MB. Each line is now judged as it is read and
    only its finding and token counts kept, so the peak is about one line's, not the file's
    (here 32 planned lines of 1 MiB: the traced peak was above the file's size before, and
    is a few lines' worth now: the raw line, its text and its record)."""
    from arena_gen.scoring.score import score_run

    run, size = _bulky_run(played, tmp_path / "bulky-run", 32, MiB, planned=True)
    summary, peak = _traced_peak(lambda: score_run(run))
    assert summary["coverage"]["planned"] == summary["coverage"]["scored"] == 32
    assert peak < 0.4 * size, (peak / MiB, size / MiB)


# -- import bounds -------------------------------------------------------------------------------
def _trading_source(tmp_path: Path, edit: Callable[[dict[str, object]], None] | None = None,
                    ) -> Path:
    if not TRADING.is_file():
        pytest.skip("../shared/reference-data is absent")
    raw = json.loads(TRADING.read_text(encoding="utf-8"))
    if edit is not None:
        edit(raw)
    out = tmp_path / "src" / TRADING.name
    out.parent.mkdir()
    out.write_text(json.dumps(raw), encoding="utf-8")
    return out


def test_trading_matrix_of_1e300_is_the_project_error(tmp_path: Path) -> None:
    """It ended in a ValueError traceback (a NaN in the certificate) when the suite was
    written."""
    def huge(raw: dict[str, object]) -> None:
        matrix = raw["dependency_matrix"]
        assert isinstance(matrix, list)
        raw["dependency_matrix"] = [[1e300] * len(row) for row in matrix]

    src = _trading_source(tmp_path, huge)
    with pytest.warns(RuntimeWarning):  # numpy's overflow notes, before the refusal
        result = CliRunner().invoke(main, ["import", "odyssey-arena", str(src),
                                           "--out", str(tmp_path / "out")])
    assert_refused(result, src, "entry 0 (its values are too large to play)")
    assert not (tmp_path / "out").exists()


def test_import_entry_time_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _trading_source(tmp_path)
    monkeypatch.setenv("ARENA_GEN_IMPORT_ENTRY_SECONDS", "0.001")
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(src),
                                       "--out", str(tmp_path / "out")])
    assert_refused(result, src, "entry 0 took longer than 0.001 s to verify; stopped "
                                "($ARENA_GEN_IMPORT_ENTRY_SECONDS raises the bound)")


def test_import_total_time_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _trading_source(tmp_path)
    monkeypatch.setenv("ARENA_GEN_IMPORT_SECONDS", "0.001")
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(src),
                                       "--out", str(tmp_path / "out")])
    assert_refused(result, src, "the import took longer than 0.001 s; stopped "
                                "($ARENA_GEN_IMPORT_SECONDS raises the bound)")
