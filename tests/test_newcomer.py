"""What a new user tripped on (#41): outputs that repeated themselves, said nothing, or were
missing; each test fails on the code before its fix."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena_gen.cli import main

TRADING = "reference-data/odyssey-arena/trading/test_trade_config_1.json"


def test_import_prints_no_rows_of_dashes(shared_dir: Path, tmp_path: Path) -> None:
    """A fixed-horizon env has no N, exact minimum or floor: one line, not a row of '-' per
    task."""
    result = CliRunner().invoke(main, ["import", "odyssey-arena", str(shared_dir / TRADING),
                                       "--out", str(tmp_path / "imp"), "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "trading-import-0-0000" in result.output
    for line in result.output.splitlines():
        cells = line.split()
        assert not (len(cells) > 1 and all(c == "-" for c in cells[1:])), line


def test_show_reveal_prints_the_intro_once() -> None:
    result = CliRunner().invoke(main, ["show", "lights-lite-7-0000", "--suite", "lite",
                                       "--reveal"])
    assert result.exit_code == 0, result.output
    assert result.output.count("There are 10 bulbs") == 1
    assert "State: off off" in result.output and "-- hidden world --" in result.output
