"""inspect parity (#24 row 12): through inspect's ``openai-api`` provider against the loopback
server, a context-length error mid-episode drops the oldest turns as the built-in agent does
(never played as an action), one on the first prompt ends the attempt as ``agent_error``, and
the scorer counts the runner's end reasons. Offline: the server is on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("openai")  # inspect's openai-api provider is built on it

from fake_openai import CONTEXT_ERRORS, FakeOpenAI, Out, Seen  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402

from arena_gen.core.suite_io import read_suite  # noqa: E402
from arena_gen.inspect import suite_task  # noqa: E402

LITE = read_suite("lite")
#: the lite lights task with the longest witness (14 turns): room for an error mid-episode
TASK = next(t for t in LITE.tasks["lights"] if t.id == "lights-lite-7-0011")
assert len(TASK.certificate.witness) == 14
MODEL = "openai-api/loop/fake-model"


@pytest.fixture(autouse=True)
def loop_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOP_API_KEY", "sk-loop")  # openai-api/<service>: <SERVICE>_API_KEY


def evaluate(server: FakeOpenAI) -> Any:
    """``inspect eval arena_gen/lite -T env=lights -T tasks=TASK`` against the server."""
    [log] = inspect_eval(suite_task("lite", env="lights", tasks=TASK.id), model=MODEL,
                         model_base_url=server.url, display="none", max_retries=1,
                         timeout=30, log_dir=tempfile.mkdtemp(), log_samples=True)
    return log


def metric(log: Any, name: str, reducer: str = "epochs") -> float:
    """A reducer's mean of one score key."""
    for s in log.results.scores:
        if s.name == name and s.reducer == reducer:
            return float(s.metrics["mean"].value)
    raise KeyError((name, reducer))


def window_end() -> int:
    """Characters of the prompt of turn 8 when nothing is cut: the server's window below."""
    with FakeOpenAI([TASK]) as server:
        log = evaluate(server)
        prompts = [s.prompt for s in server.seen]
    assert log.status == "success" and len(prompts) == len(TASK.certificate.witness)
    return len(prompts[7])


@pytest.fixture(scope="module")
def chars() -> int:
    os.environ.setdefault("LOOP_API_KEY", "sk-loop")
    return window_end()


@pytest.mark.parametrize("flavor", ["openai", "llama.cpp", "vllm"])
def test_context_error_mid_episode_drops_old_turns(chars: int, flavor: str) -> None:
    body = CONTEXT_ERRORS[flavor]

    def fault(seen: Seen) -> Out | None:  # the witness, unless the prompt is over the window
        return Out(status=400, body=body) if len(seen.prompt) > chars else None

    with FakeOpenAI([TASK], fault=fault) as server:
        log = evaluate(server)
        refused = sum(len(s.prompt) > chars for s in server.seen)
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.error is None
    record = sample.store["arena_gen_trajectory"]
    turns = record["turns"]
    # every turn played the witness: the error text was never an action
    assert [t["action"] for t in turns] == list(TASK.certificate.witness)
    assert not any("context" in t["raw"] for t in turns)
    errors = [t.get("context", {}).get("context_errors", 0) for t in turns]
    assert sum(errors) == refused >= 1 and errors[:8] == [0] * 8
    late = turns[-1]["context"]
    assert late["turns_dropped"] >= 1 and late["turns_shown"] + late["turns_dropped"] == 13
    score = sample.scores["judge_scorer"]
    assert score.value == {"success": 1.0, "credit": 100.0, "steps": float(len(turns)),
                           "pass_at_k": 1.0, "induction_efficiency": 1.0,  # the minimum
                           "agent_error": 0.0, "env_error": 0.0}
    assert record["end_reason"] == "success"


def test_first_prompt_over_the_window_is_an_agent_error() -> None:
    body = CONTEXT_ERRORS["llama.cpp-new"]
    with FakeOpenAI([TASK], fault=lambda s: Out(status=400, body=body)) as server:
        log = evaluate(server)
        assert len(server.seen) == 1  # nothing to drop: not asked again
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.error is None  # recorded and scored, as arena-gen run records it
    record = sample.store["arena_gen_trajectory"]
    assert record["end_reason"] == "agent_error" and record["steps"] == 0
    assert "ContextLengthError" in record["error"] and "exceeds the available" in record["error"]
    assert metric(log, "agent_error") == 1.0 and metric(log, "env_error") == 0.0
    assert metric(log, "success") == 0.0


@pytest.mark.slow
def test_inspect_eval_command_offline(chars: int, tmp_path: Any) -> None:
    """The literal ``inspect eval`` command of docs/inspect.md's local-server form."""
    body = CONTEXT_ERRORS["llama.cpp"]

    def fault(seen: Seen) -> Out | None:
        return Out(status=400, body=body) if len(seen.prompt) > chars else None

    with FakeOpenAI([TASK], fault=fault) as server:
        env = {**os.environ, "LOOP_API_KEY": "sk-loop", "INSPECT_DISPLAY": "none"}
        done = subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), "inspect"), "eval", "arena_gen/lite",
             "-T", "env=lights", "-T", f"tasks={TASK.id}", "--model", MODEL,
             "--model-base-url", server.url, "--log-dir", str(tmp_path), "--log-format",
             "json"], env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = list(tmp_path.glob("*.json"))
    log = read_eval_log(str(path))
    assert log.status == "success"
    [sample] = log.samples or []
    record = sample.store["arena_gen_trajectory"]
    assert record["end_reason"] == "success"
    assert sum(t.get("context", {}).get("context_errors", 0) for t in record["turns"]) >= 1
    assert json.loads(path.read_text())["results"]["scores"]
