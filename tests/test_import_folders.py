"""``arena-gen import`` takes the release's folders, gives ids that do not depend on the order
its files are named in (natural file-name order, then entry order), and warns on a source given
twice (#24 rows 5 and 6)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.cli import main
from arena_gen.core.errors import ArenaGenError
from arena_gen.suite import importer

ODYSSEY = Path(__file__).resolve().parents[1] / "suites" / "odyssey-lite"
TRADING = "reference-data/odyssey-arena/trading"


def _lights(path: Path, entries: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


#: Two small released-format lights entries (a chain and a fan), solvable in 3 toggles.
CHAIN = {"idx": 0, "level": 3, "custom_logic": {"B0": "True", "B1": "B0", "B2": "B1"}}
FAN = {"idx": 1, "level": 3, "custom_logic": {"B1": "True", "B0": "B1", "B2": "B1 and B0"}}


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["import", "odyssey-arena", *args, "--display", "plain"])
    return result.exit_code, result.output


def _ids_by_source(out: Path, env: str) -> dict[str, str]:
    lines = (out / f"{env}.jsonl").read_text(encoding="utf-8").splitlines()
    tasks = [json.loads(line) for line in lines]
    return {t["id"]: t["params"]["source"] for t in tasks}


def test_natural_name_order_is_the_import_order(tmp_path: Path) -> None:
    names = ["test_trade_config_10.json", "test_trade_config_2.json", "test_trade_config_1.json",
             "a_9.json", "a_10.json"]
    for name in names:
        (tmp_path / name).write_text(name, encoding="utf-8")
    ordered = sorted((tmp_path / n for n in names), key=importer.source_key)
    assert [p.name for p in ordered] == ["a_9.json", "a_10.json", "test_trade_config_1.json",
                                         "test_trade_config_2.json", "test_trade_config_10.json"]


def test_a_folder_imports_every_data_file_inside_and_reports_the_rest(tmp_path: Path) -> None:
    release = tmp_path / "release"
    _lights(release / "lights" / "deep" / "set_b.json", [FAN])
    _lights(release / "lights" / "set_a.json", [CHAIN])
    (release / "README.md").write_text("# data\n", encoding="utf-8")
    (release / "notes.json").write_text('{"about": "not task data"}', encoding="utf-8")
    (release / ".hidden.json").write_text("not even JSON", encoding="utf-8")
    (release / ".git").mkdir()
    (release / ".git" / "x.json").write_text("{", encoding="utf-8")
    code, output = _invoke(str(release), "--out", str(tmp_path / "suite"))
    assert code == 0, output
    manifest = json.loads((tmp_path / "suite" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"] == {"lights": 2}
    assert [(f["file"], f["entries"]) for f in manifest["build"]["lights"]["sources"]] == [
        ("set_a.json", 1), ("set_b.json", 1)]
    assert [pin[:2] for pin in manifest["build"]["lights"]["entries"].values()] == [
        ["set_a.json", 0], ["set_b.json", 0]]
    lines = (tmp_path / "suite" / "lights.jsonl").read_text(encoding="utf-8").splitlines()
    worlds = [json.loads(line)["world"]["n"] for line in lines]
    assert [json.loads(line)["params"]["source_idx"] for line in lines] == [0, 1]
    assert worlds == [3, 3]
    assert f"skipped {release / 'README.md'}: not a .json file" in output
    assert f"skipped {release / 'notes.json'}: no importer accepts this file" in output
    assert ".hidden" not in output and ".git" not in output


def test_a_folder_and_files_in_any_order_give_the_same_suite(tmp_path: Path) -> None:
    a = _lights(tmp_path / "data" / "a_10.json", [FAN])
    b = _lights(tmp_path / "data" / "a_9.json", [CHAIN])
    outs = []
    for i, args in enumerate([[str(a), str(b)], [str(b), str(a)], [str(tmp_path / "data")]]):
        out = tmp_path / f"suite{i}"
        code, output = _invoke(*args, "--out", str(out))
        assert code == 0, output
        outs.append(out)
    first = (outs[0] / "lights.jsonl").read_bytes()
    assert all((out / "lights.jsonl").read_bytes() == first for out in outs)
    ids = [json.loads(line)["params"]["source_idx"] for line in first.decode().splitlines()]
    assert ids == [0, 1]  # a_9.json (CHAIN, idx 0) before a_10.json (FAN, idx 1)


def test_a_damaged_json_file_in_a_folder_stops_the_import(tmp_path: Path) -> None:
    _lights(tmp_path / "data" / "ok.json", [CHAIN])
    (tmp_path / "data" / "cut.json").write_text('[{"idx": 0, "level"', encoding="utf-8")
    code, output = _invoke(str(tmp_path / "data"), "--out", str(tmp_path / "suite"))
    assert code == 1
    assert f"{tmp_path / 'data' / 'cut.json'}: a .json file in" in output
    assert "not JSON" in output and "Traceback" not in output
    assert not (tmp_path / "suite").exists()


def test_a_folder_without_data_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "README.md").write_text("x", encoding="utf-8")
    code, output = _invoke(str(tmp_path / "data"), "--out", str(tmp_path / "suite"))
    assert code == 1
    assert f"{tmp_path / 'data'}: no released data file found in this folder" in output
    with pytest.raises(ArenaGenError, match="no released data file found"):
        importer.plan_import([tmp_path / "data"])


def test_a_file_given_twice_is_imported_once_with_a_warning(tmp_path: Path) -> None:
    data = _lights(tmp_path / "data" / "a.json", [CHAIN, FAN])
    copy = tmp_path / "copy.json"
    shutil.copyfile(data, copy)
    code, output = _invoke(str(copy), str(data), str(tmp_path / "data"),
                           "--out", str(tmp_path / "suite"))  # the copy first: a.json is kept
    assert code == 0, output
    manifest = json.loads((tmp_path / "suite" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"] == {"lights": 2}
    assert [f["file"] for f in manifest["build"]["lights"]["sources"]] == ["a.json"]
    assert "warning: " in output
    assert f"{data}: the same file as {data}, given twice; imported once" in output
    assert f"{copy}: the same content as {data}, given twice; imported once" in output
    files, notes = importer.unique_sources([copy, data])
    assert files == [data] and notes == [f"{copy}: the same content as {data}, given twice; "
                                         f"imported once"]


def test_a_repeated_entry_is_kept_with_a_warning(tmp_path: Path) -> None:
    path = _lights(tmp_path / "a.json", [CHAIN, FAN, {**CHAIN, "idx": 2}])
    heard: list[str] = []
    tasks = importer.import_tasks("lights", [path], warn=heard.append)
    assert [t.id for t in tasks] == [f"lights-import-0-{i:04d}" for i in range(3)]
    assert heard == [f"{path}: entry 2 repeats the world of {path} entry 0 "
                     f"(lights-import-0-0000); both are imported (lights-import-0-0002 is the "
                     f"repeat)"]
    code, output = _invoke(str(path), "--out", str(tmp_path / "suite"))
    assert code == 0 and f"warning: {heard[0]}" in output


def test_released_trading_ids_follow_the_config_number_not_the_argument_order(
        shared_dir: Path, tmp_path: Path) -> None:
    folder = shared_dir / TRADING
    glob_order = [folder / f"test_trade_config_{i}.json" for i in (1, 10, 2, 3)]  # as `*` sorts
    shuffled = [folder / f"test_trade_config_{i}.json" for i in (3, 2, 10, 1)]
    suites = []
    for i, files in enumerate([glob_order, shuffled]):
        code, output = _invoke(*map(str, files), "--out", str(tmp_path / f"s{i}"))
        assert code == 0, output
        suites.append(tmp_path / f"s{i}")
    assert _ids_by_source(suites[0], "trading") == {
        "trading-import-0-0000": "test_trade_config_1.json",
        "trading-import-0-0001": "test_trade_config_2.json",
        "trading-import-0-0002": "test_trade_config_3.json",
        "trading-import-0-0003": "test_trade_config_10.json"}
    assert all((s / "trading.jsonl").read_bytes() == (suites[0] / "trading.jsonl").read_bytes()
               for s in suites)
    shipped = (ODYSSEY / "trading.jsonl").read_bytes().splitlines()
    mine = (suites[0] / "trading.jsonl").read_bytes().splitlines()
    assert mine[:3] == shipped[:3]  # configs 1-3 are the shipped trading-import-0-0000..0002
