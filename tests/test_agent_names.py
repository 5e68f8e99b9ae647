"""``run --agent NAME`` accepts every rung an env version's ladder registers (model-free and
inductive baselines), and an unknown name is refused naming that version's agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena_gen.agents.registry import available, make_agent
from arena_gen.cli import main
from arena_gen.cli.run import command as run_command
from arena_gen.core import registry
from arena_gen.core.errors import ArenaGenError
from arena_gen.core.suite_io import resolve_suite
from arena_gen.runner.rundir import RunDir

TASK = "lights-lite-7-0000"


def test_every_registered_rung_is_a_choice() -> None:
    """The CLI's choices hold each spec's baselines and model-free rungs (the ladder's names
    the registry's docstring promises), e.g. lights' sweep and repo's named_loop."""
    choices = set(next(p for p in run_command.params if p.name == "agent").type.choices)
    rungs = {n for s in registry.all_specs() for n in [*s.baselines, *s.model_free]}
    assert {"sweep", "optimist", "climber", "climb", "named_loop", "hold", "momentum",
            "persistence", "prior_aware"} <= choices
    assert rungs <= choices


def test_a_rung_is_built_for_its_own_version_only() -> None:
    """Lights v4 plays climber; v3 registers only sweep and says which versions play it."""
    assert make_agent("climber", "lights", version=4) is not None
    with pytest.raises(ArenaGenError, match=r"plays lights v4.*not v3; its agents: .*sweep"):
        make_agent("climber", "lights", version=3)


def test_an_unknown_name_lists_the_versions_agents() -> None:
    spec = registry.get("lights", 4)
    with pytest.raises(ArenaGenError) as err:
        make_agent("no-such-agent", "lights", version=4)
    assert str(err.value) == ("unknown agent 'no-such-agent' for lights v4; its agents: "
                              + ", ".join(available(spec)))
    assert {"sweep", "optimist", "climber", "prior_aware", "planner"} <= set(available(spec))


def test_a_model_free_rung_scores_what_its_certificate_says(tmp_path: Path) -> None:
    """sweep on one released Lite lights task: no success, the certificate's step count."""
    line = next(raw for raw in (resolve_suite("lite") / "lights.jsonl").read_text().splitlines()
                if f'"{TASK}"' in raw)
    rung = json.loads(line)["certificate"]["ladder"]["sweep"]
    assert rung["kind"] == "model_free" and rung["successes"] == 0
    args = ["run", "--suite", "lite", "--agent", "sweep", "--env", "lights", "--tasks", TASK,
            "--out", str(tmp_path / "run"), "--display", "none"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    record, = RunDir(tmp_path / "run").records()
    assert (record["agent"], record["success"]) == ("sweep", False)
    assert record["steps"] == rung["results"][0]["steps"] == 50
