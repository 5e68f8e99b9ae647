"""Every option reads ``ARENA_GEN_<COMMAND>_<OPTION>``, the documented rule (#16)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena_gen.cli import envvar_name, main


def test_every_option_reads_the_variable_the_rule_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = click.Context(main, auto_envvar_prefix="ARENA_GEN")
    wrong = []
    for name, command in main.commands.items():
        sub = click.Context(command, parent=ctx, info_name=name)
        for param in command.params:
            if isinstance(param, click.Option) and any(o.startswith("--") for o in param.opts):
                wanted = envvar_name(name, param)
                monkeypatch.setenv(wanted, "sentinel")
                if param.resolve_envvar_value(sub) != "sentinel":
                    wrong.append(wanted)
                monkeypatch.delenv(wanted)
    assert not wrong


def test_help_names_every_variable() -> None:
    runner = CliRunner()
    for name, command in main.commands.items():
        out = runner.invoke(main, [name, "--help"], terminal_width=200).output
        flat = " ".join(out.split())
        for param in command.params:
            if isinstance(param, click.Option) and any(o.startswith("--") for o in param.opts):
                assert envvar_name(name, param) in flat, (name, param.name)
    flat = " ".join(runner.invoke(main, ["build", "--help"], terminal_width=200).output.split())
    assert "[env var: ARENA_GEN_BUILD_RAY_ADDRESS, RAY_ADDRESS]" in flat


def test_the_renamed_options_are_read_from_their_variables(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["show", "lights-lite-7-0000", "--suite", "lite"],
                           env={"ARENA_GEN_SHOW_JSON": "1"})
    assert result.exit_code == 0 and result.output.lstrip().startswith("{"), result.output
    result = runner.invoke(main, ["run", "--suite", "lite", "--agent", "random", "--out",
                                  str(tmp_path / "r"), "--tasks", "energy-lite-7-0000",
                                  "--display", "none"],
                           env={"ARENA_GEN_RUN_ENV": "lights"})
    assert result.exit_code == 1 and "no task 'energy-lite-7-0000' in the selection" in \
        result.output, result.output
    result = runner.invoke(main, ["report", str(tmp_path)],
                           env={"ARENA_GEN_REPORT_HTML": str(tmp_path / "r.html")})
    assert "Missing option '--html'" not in result.output, result.output
