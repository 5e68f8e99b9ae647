"""The inspect solver asks probes as ``arena-gen run --probes`` does (#38): a fork of the next
turn's prompt without tools, no turn spent, and a second scorer grading them from the replay."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

import toy_env  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from arena_gen.agents.llm_probes import PROBE_HEAD  # noqa: E402
from arena_gen.core import registry  # noqa: E402
from arena_gen.core.suite_io import write_suite  # noqa: E402
from arena_gen.inspect import suite_task  # noqa: E402
from arena_gen.inspect.solver import TRAJECTORY  # noqa: E402
from arena_gen.suite.build import build_suite  # noqa: E402


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    registry.register(toy_env.spec(1, game=toy_env.ProbeCounterGame))
    try:
        built = build_suite("lite", 5, ["counter"])
        yield write_suite(tmp_path_factory.mktemp("s") / "suite", built.manifest, built.tasks)
    finally:
        registry.unregister("counter")


def test_inspect_solver_forks_probes_and_scores_knowledge(suite: Path) -> None:
    asked: list[tuple[list[Any], Any]] = []
    turns: list[list[Any]] = []

    def model(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        last = str(messages[-1].content)
        if last.startswith(PROBE_HEAD):
            asked.append((messages, tools))
            text = "".join(f'<answer id="q{n}">no</answer>' for n in range(2))
        else:
            turns.append(messages)
            text = "<action>up</action>"
        out = ModelOutput.from_content(model="mockllm", content=text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    task = suite_task(str(suite), probes=2)
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=model),
                         display="none", log_dir=tempfile.mkdtemp(), log_samples=True)
    assert log.status == "success", log.error
    assert log.samples and asked
    for sample in log.samples:
        record = sample.store[TRAJECTORY]
        assert record["success"] and record["steps"] == len(record["turns"])
        assert all(t["action"] == "up" for t in record["turns"])  # probes cost no turn
        assert record["probes"] and all(m["replies"] == ["no", "no"]
                                        for m in record["probes"])
        assert all(m["tokens"]["total_tokens"] == 15 for m in record["probes"])
        score = sample.scores["knowledge_scorer"]
        assert 0.0 <= float(score.value) <= 100.0 and score.metadata["milestones"]
    assert all(not tools for _, tools in asked)  # no tools in a probe request
    prompts = [[str(m.content) for m in msgs] for msgs in turns]
    for messages, _ in asked:  # each fork is the next turn's prompt plus the questions (at
        # the end, the last turn's prompt with its action and the last observation)
        prefix = [str(m.content) for m in messages[:-1]]
        assert prefix[-1].startswith("## Current observation")
        assert prefix in prompts or (prefix[:-2] in prompts and prefix[-2].startswith(
            "<action>"))
    names = {s.name for s in log.results.scores}
    assert "knowledge_scorer" in names
