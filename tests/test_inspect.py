"""inspect_ai integration: tasks found by entry point, prompts as the LLM agent's, judged scores.

Offline throughout: inspect's ``mockllm/model`` is given replies that carry token usage, or,
with its default replies (no usage), the solver's character estimate stands in for the tiktoken
vocabulary inspect would otherwise download (checked with tiktoken made unusable).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import entry_points

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Epochs, Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from arena_gen.agents.llm import LLMAgent  # noqa: E402
from arena_gen.core.agent import TaskView  # noqa: E402
from arena_gen.core.errors import ArenaGenError, HashMismatchError  # noqa: E402
from arena_gen.core.suite_io import read_suite  # noqa: E402
from arena_gen.inspect import baseline, judge_scorer, suite_dataset, suite_task  # noqa: E402
from arena_gen.inspect.dataset import sample_task  # noqa: E402
from arena_gen.inspect.solver import CHARS_PER_TOKEN, ModelAgent  # noqa: E402

LITE = read_suite("lite")
TURN = re.compile(r"## Current observation \(turn (\d+) of \d+\)")


def reply(text: str) -> ModelOutput:
    """A mock reply with usage set, so the mock model never counts tokens itself."""
    out = ModelOutput.from_content(model="mockllm", content=text)
    out.usage = ModelUsage(input_tokens=10, output_tokens=len(text), total_tokens=10 + len(text))
    return out


def witness_player(witness: list[str]):
    """A mock model that reads the turn number from the prompt and plays the witness's action."""

    def play(messages, tools, tool_choice, config) -> ModelOutput:
        turn = int(TURN.findall(str(messages[-1].content))[-1])
        action = witness[turn - 1] if turn <= len(witness) else ""
        return reply(f"<think>turn {turn}</think>Playing it.\n<action>{action}</action>")

    return play


def run(task: Task, model, **kwargs):
    """One eval, its log files in a temporary folder; the single log back."""
    [log] = inspect_eval(task, model=model, display="none", log_dir=tempfile.mkdtemp(),
                         log_samples=True, **kwargs)
    assert log.status == "success", log.error
    return log


def metric(log, name: str, reducer: str, stat: str = "mean") -> float:
    """A reducer's metric value from a log's results."""
    for s in log.results.scores:
        if s.name == name and s.reducer == reducer:
            return s.metrics[stat].value
    raise KeyError((name, reducer))


def test_entry_point_names_the_registry_module(tmp_path) -> None:
    [ep] = [e for e in entry_points(group="inspect_ai") if e.name == "arena_gen"]
    assert ep.value == "arena_gen.inspect._registry"
    # As ``inspect eval`` resolves names: a fresh process, outside the checkout (whose
    # egg-info would hide the install record inspect uses to namespace the names).
    code = ("from inspect_ai._util.registry import registry_lookup as r; "
            "print([r(k, n) is not None for k, n in (('task', 'arena_gen/lite'), "
            "('task', 'arena_gen/challenge'), ('task', 'arena_gen/suite'), "
            "('solver', 'arena_gen/baseline'), ('scorer', 'arena_gen/judge_scorer'))])")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[True, True, True, True, True]"


def test_dataset_carries_ids_and_the_judge_looks_tasks_up(tmp_path) -> None:
    data = suite_dataset("lite", envs=["lights"], mode="with-rules")
    assert [s.id for s in data] == [t.id for t in LITE.tasks["lights"]]
    first = data[0]
    task = LITE.tasks["lights"][0]
    # the sample names the task and its suite; the world, witness and certificate stay out
    assert first.metadata == {"task_id": task.id, "suite": str(LITE.path),
                              "suite_sha256": LITE.manifest["suite_sha256"],
                              "mode": "with-rules", "env": "lights", "budget": task.budget}
    assert sample_task(first.metadata).sha256 == task.sha256
    assert "## Rules (disclosed)" in first.input and task.rules_text in first.input
    # a suite rewritten since the dataset was built is refused, as is an id it lacks
    shutil.copytree(LITE.path, tmp_path / "lite")
    moved = {**first.metadata, "suite": str(tmp_path / "lite"), "suite_sha256": "0" * 64}
    with pytest.raises(HashMismatchError, match="differs from the sample's"):
        sample_task(moved)
    missing = {**first.metadata, "task_id": "lights-lite-7-9999"}
    with pytest.raises(ArenaGenError, match="no task 'lights-lite-7-9999'"):
        sample_task(missing)
    with pytest.raises(ArenaGenError, match="names no arena-gen task"):
        sample_task({"arena_gen_task": task.to_dict()})


def test_prompts_match_the_builtin_llm_agent() -> None:
    task = LITE.tasks["repo"][0]
    view = TaskView.of(task, "with-rules")
    ours = ModelAgent(get_model("mockllm/model"), history=3)
    theirs = LLMAgent(model="m", history=3)
    for agent in (ours, theirs):
        agent.reset(view, "with-rules", None)  # type: ignore[arg-type]
    assert ours.messages("obs 1") == theirs.messages("obs 1")


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_whole_episode_per_env_scores_by_the_judge(env: str) -> None:
    task = LITE.tasks[env][0]
    witness = list(task.certificate.witness)
    model = get_model("mockllm/model", custom_outputs=witness_player(witness))
    log = run(suite_task("lite", env=env, tasks=task.id), model)
    [sample] = log.samples
    score = sample.scores["judge_scorer"]
    value = dict(score.value)
    induction = value.pop("induction_efficiency")
    assert value == {"success": 1.0, "credit": 100.0, "steps": float(len(witness)),
                     "pass_at_k": 1.0, "agent_error": 0.0, "env_error": 0.0}
    reference = score.metadata["induction_reference"]
    if task.certificate.min_steps is None:  # fixed horizon: no reference, left out as NaN
        assert math.isnan(induction) and reference is None
    else:  # the witness is the with-rules minimum: efficiency 1 against that lower bound
        assert induction == 1.0 and reference == {
            "steps": float(task.certificate.min_steps),
            "kind": "lower bound: with-rules minimum"}
    assert all(f["status"] == "met" for f in score.metadata["findings"])
    assert score.metadata["end_reason"] in ("success", "terminated", "budget")
    record = sample.store["arena_gen_trajectory"]
    assert [t["action"] for t in record["turns"]] == witness
    assert record["turns"][0]["reasoning"] == "turn 1"
    if task.certificate.min_steps is not None:
        assert len(witness) == task.certificate.min_steps


def test_replies_without_an_action_tag_waste_every_turn(monkeypatch) -> None:
    # The literal ``--model mockllm/model``: default replies, no usage; no tokenizer may be used.
    import tiktoken

    def no_vocabulary(name: str):
        raise AssertionError(f"tiktoken vocabulary {name} requested (a network download)")

    monkeypatch.setattr(tiktoken, "get_encoding", no_vocabulary)
    task = LITE.tasks["lights"][0]
    log = run(suite_task("lite", env="lights", tasks=task.id), get_model("mockllm/model"))
    [sample] = log.samples
    score = sample.scores["judge_scorer"]
    assert score.value == {"success": 0.0, "credit": 0.0, "steps": float(task.budget),
                           "pass_at_k": 0.0, "induction_efficiency": 0.0,  # failed: 0
                           "agent_error": 0.0, "env_error": 0.0}
    assert score.explanation.startswith("all_on: violated (final state: 0/")
    turns = sample.store["arena_gen_trajectory"]["turns"]
    assert len(turns) == task.budget and not any(t["valid"] for t in turns)
    assert all(t.get("no_action_tag") for t in turns)
    assert turns[0]["raw"] == "Default output from mockllm/model"
    # The estimate: a quarter of the characters the first prompt sent, rounded up.
    [first_call] = [e for e in sample.events if e.event == "model"][:1]
    texts = [m.text for m in first_call.input]  # long texts are stored as attachments
    sent = len("\n".join(sample.attachments.get(t.removeprefix("attachment://"), t)
                          for t in texts))
    assert sent > 500
    assert turns[0]["tokens"]["prompt_tokens"] == -(-sent // CHARS_PER_TOKEN)
    assert turns[0]["tokens"]["completion_tokens"] == len(turns[0]["raw"])


def test_oracle_solver_scores_100_on_two_lights_samples() -> None:
    task = Task(dataset=suite_dataset("lite", envs=["lights"]), solver=baseline("oracle"),
                scorer=judge_scorer(), epochs=Epochs(2, ["mean", "max"]))
    log = run(task, "mockllm/model", limit=2)
    assert len(log.samples) == 4
    # the oracle read the world from the suite by id: the samples never carried it
    assert all("world" not in str(s.metadata) and "witness" not in str(s.metadata)
               for s in log.samples)
    assert metric(log, "success", "mean") == 1.0
    assert metric(log, "credit", "mean") == 100.0
    steps = [t.certificate.min_steps for t in LITE.tasks["lights"][:2]]
    assert metric(log, "steps", "mean") == sum(steps) / 2


def test_epochs_give_avg_and_pass_at_k() -> None:
    task = LITE.tasks["lights"][1]
    witness = list(task.certificate.witness)
    episodes = []

    def first_succeeds(messages, *rest) -> ModelOutput:
        turn = int(TURN.findall(str(messages[-1].content))[-1])
        if turn == 1:
            episodes.append(1)
        if len(episodes) == 1 and turn <= len(witness):
            return reply(f"<action>{witness[turn - 1]}</action>")
        return reply("<action>99</action>")  # out of range: invalid, state unchanged

    model = get_model("mockllm/model", custom_outputs=first_succeeds)
    log = run(suite_task("lite", env="lights", tasks=task.id), model, epochs=2, max_samples=1)
    assert len(episodes) == 2
    assert metric(log, "success", "epochs") == 0.5  # success rate over attempts
    assert metric(log, "credit", "epochs") == 50.0  # Avg@2
    assert metric(log, "pass_at_k", "epochs") == 1.0  # Pass@2
    # the witness's episode scores 1 (it is the minimum), the failed one 0: mean 0.5
    assert metric(log, "induction_efficiency", "epochs") == 0.5
    # one reducer: one block per figure in inspect's panel, each named (two reducers gave
    # two blocks named "success", "credit", ... side by side)
    names = [s.name for s in log.results.scores]
    assert len(names) == len(set(names)) and "pass_at_k" in names
