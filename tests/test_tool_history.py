"""Tool calls done right (#40): past turns as the API's own tool-call and tool-result messages,
a server that ignores ``tool_choice=required`` said once and counted, hostile arguments costing
one turn as a ``tool_error``, and the inspect path sending the same schemas and recording the
same token counts (cached tokens included) as ``arena-gen run``.

Against the loopback OpenAI-compatible server (:mod:`fake_openai`)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Out, Seen

from arena_gen.agents.llm_tools import TOOLS_NO_CALL, call_action, tool_schemas
from arena_gen.cli import main
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.suite.build import build_suite

LITE = read_suite("lite")
TASK = LITE.tasks["lights"][0]
WITNESS = list(TASK.certificate.witness)
KEY = "sk-test-history-77c1SECRET"


def lights_call(env: str, action: str) -> tuple[str, str]:
    return "toggle", json.dumps({"bulb": int(action)})


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LOOP_API_KEY", KEY)  # inspect's openai-api/loop provider
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-task suite: the first lite lights task (built again, as the lite seed does)."""
    built = build_suite("lite", 7, ["lights"], counts={"lights": 1})
    assert built.tasks["lights"][0].id == TASK.id
    return write_suite(tmp_path_factory.mktemp("suite") / "one", built.manifest, built.tasks)


def run_tools(suite: Path, out: Path, server: FakeOpenAI, **over: Any) -> RunDir:
    cfg = {"model": "fake-model", "base_url": server.url, "temperature": 0.6,
           "max_connections": 2, "timeout": 5.0, "retries": 1, "backoff": 0.005,
           "action_format": "tools", **over}
    return run_suite(RunConfig(suite=str(suite), agent="llm", attempts=1, out=str(out),
                               agent_config=cfg))


# -- history as the API's own messages ------------------------------------------------------------
def test_history_is_tool_call_and_tool_result_messages(suite: Path, tmp_path: Path) -> None:
    bad = {1: Out(content="", tool_calls=[("toggle", '{"bulb": "one"}')]),
           2: Out(content="(none: your reply had no valid tool call)")}

    def fault(seen: Seen) -> Out | None:
        return bad.get(seen.turn)

    with FakeOpenAI([TASK], key=KEY, fault=fault, to_call=lights_call) as server:
        rundir = run_tools(suite, tmp_path / "run", server)
        bodies = {s.turn: s.body for s in server.seen}
    [record] = rundir.records()
    played = record["turns"][2]["action"]
    assert played and record["turns"][2]["valid"]
    messages = bodies[4]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool",
                                             "assistant", "user", "assistant", "tool"]
    bad_call, no_call, good = messages[2], messages[4], messages[6]
    assert bad_call == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "toggle", "arguments": '{"bulb": "one"}'}}]}
    assert messages[3]["tool_call_id"] == "call_1"
    assert messages[3]["content"].startswith(
        "Invalid call (arguments.bulb must be integer, got string): no action was played")
    assert "## Current observation (turn 2 of" in messages[3]["content"]
    # a reply without a call: an empty assistant turn, and the user says so (no prose to copy)
    assert no_call == {"role": "assistant", "content": ""}
    assert messages[5]["content"].startswith(TOOLS_NO_CALL)
    assert good["tool_calls"][0] == {"id": "call_3", "type": "function", "function": {
        "name": "toggle", "arguments": json.dumps({"bulb": int(played)})}}
    assert messages[7]["content"].startswith("## Current observation (turn 4 of")
    # no assistant message carries text at all: nothing for the model to copy back
    assert all(not m.get("content") for b in bodies.values() for m in b["messages"]
               if m["role"] == "assistant")
    # each prompt extends the previous one (a server's prefix cache reuses it)
    for turn in range(2, max(bodies) + 1):
        assert bodies[turn]["messages"][:len(bodies[turn - 1]["messages"])] == \
            bodies[turn - 1]["messages"]


# -- tool_choice=required ignored ------------------------------------------------------------------
def test_a_server_ignoring_required_is_said_once_and_counted(suite: Path,
                                                             tmp_path: Path) -> None:
    def fault(seen: Seen) -> Out | None:  # turns 1-3 answered in prose despite `required`
        return Out(content="I think bulb 2.") if seen.turn <= 3 else None

    with FakeOpenAI([TASK], key=KEY, fault=fault, to_call=lights_call) as server:
        result = CliRunner().invoke(main, [
            "run", "--suite", str(suite), "--agent", "llm", "--model", "fake-model",
            "--base-url", server.url, "--action-format", "tools", "--tool-choice", "required",
            "--out", str(tmp_path / "run"), "--display", "plain"])
        assert all(s.body["tool_choice"] == "required" for s in server.seen)
    assert result.exit_code == 0, result.output
    assert result.output.count("warning: the endpoint ignores --tool-choice required") == 1
    assert f"the reply of {TASK.id} turn 1 made no tool call" in result.output
    assert ("3 turn(s) in 1 episode(s) got a reply without a tool call although "
            "--tool-choice required was sent") in result.output
    [record] = RunDir(tmp_path / "run").records()
    assert [bool(t.get("tool_choice_ignored")) for t in record["turns"][:4]] == [
        True, True, True, False]


def test_auto_replies_without_a_call_are_not_reported(suite: Path, tmp_path: Path) -> None:
    def fault(seen: Seen) -> Out | None:
        return Out(content="I think bulb 2.") if seen.turn == 1 else None

    with FakeOpenAI([TASK], key=KEY, fault=fault, to_call=lights_call) as server:
        result = CliRunner().invoke(main, [
            "run", "--suite", str(suite), "--agent", "llm", "--model", "fake-model",
            "--base-url", server.url, "--action-format", "tools", "--tool-choice", "auto",
            "--out", str(tmp_path / "run"), "--display", "plain"])
    assert result.exit_code == 0, result.output
    assert "ignores" not in result.output
    [record] = RunDir(tmp_path / "run").records()
    assert "tool_choice_ignored" not in record["turns"][0]


# -- hostile arguments -----------------------------------------------------------------------------
HOSTILE = {
    "an integer over 4,300 digits": '{"bulb": ' + "7" * 5000 + "}",
    "deep nesting": '{"bulb": ' + "[" * 30000 + "]" * 30000 + "}",
    "megabytes": '{"bulb": 1, "pad": "' + "x" * 3_000_000 + '"}',
}


@pytest.mark.parametrize(("what", "why"), [
    ("an integer over 4,300 digits", "the arguments are not JSON (Exceeds the limit (4300 "
                                     "digits) for integer string conversion)"),
    ("deep nesting", "the arguments are not JSON (nested too deeply)"),
    ("megabytes", "the arguments are 3000022 characters, over the limit of 65536"),
])
def test_hostile_arguments_cost_one_turn_as_a_tool_error(suite: Path, tmp_path: Path,
                                                         what: str, why: str) -> None:
    def fault(seen: Seen) -> Out:  # turn 1 hostile, then the witness from its start
        if seen.turn == 1:
            return Out(content="", tool_calls=[("toggle", HOSTILE[what])])
        return Out(content="", tool_calls=[lights_call("lights", WITNESS[seen.turn - 2])])

    with FakeOpenAI([TASK], key=KEY, fault=fault, to_call=lights_call, keep=False) as server:
        rundir = run_tools(suite, tmp_path / "run", server)
    [record] = rundir.records()
    first = record["turns"][0]
    assert first["tool_error"] == why
    assert first["action"] == "" and first["valid"] is False
    assert len(first["tool_call"]["arguments"]) <= 4096  # recorded capped
    assert record["end_reason"] == "success"  # the episode went on
    assert [t["action"] for t in record["turns"][1:]] == WITNESS


@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_hostile_arguments_of_every_env_are_malformed_calls(env: str) -> None:
    task = LITE.tasks[env][0]
    v = task.env_version
    [tool, *_] = tool_schemas(env, task.public, version=v)
    name = tool["function"]["name"]
    field = next(iter(tool["function"]["parameters"].get("properties") or {"x": {}}))
    for value in ("7" * 5000, "[" * 30000 + "]" * 30000, '"' + "x" * 100_000 + '"'):
        action, why = call_action(env, task.public, name, f'{{"{field}": {value}}}', version=v)
        assert action is None and why and why.startswith("the arguments are"), (env, why)
    # a dict nested deeper than the stack (inspect hands arguments over parsed)
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"a": deep}
    assert call_action(env, task.public, name, {field: deep}, version=v)[0] is None


# -- the inspect path: same schemas, same token counts --------------------------------------------
def test_inspect_sends_the_same_schemas_and_records_the_same_tokens(suite: Path,
                                                                    tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai")
    pytest.importorskip("openai")
    from inspect_ai import eval as inspect_eval

    from arena_gen.inspect import suite_task

    seen: dict[str, list[Seen]] = {}
    records: dict[str, dict[str, Any]] = {}
    with FakeOpenAI([TASK], to_call=lights_call, cached=True) as server:
        rundir = run_tools(suite, tmp_path / "run", server, base_url=server.url)
        [records["run"]] = rundir.records()
        seen["run"], server.seen = list(server.seen), []
        server.reset_counters()
        [log] = inspect_eval(suite_task("lite", env="lights", tasks=TASK.id,
                                        action_format="tools"),
                             model="openai-api/loop/fake-model", model_base_url=server.url,
                             display="none", max_retries=1, timeout=30,
                             log_dir=tempfile.mkdtemp(), log_samples=True)
        seen["inspect"] = list(server.seen)
    assert log.status == "success", log.error
    [sample] = log.samples
    records["inspect"] = sample.store["arena_gen_trajectory"]
    for path in ("run", "inspect"):
        record = records[path]
        assert record["end_reason"] == "success"
        assert [t["action"] for t in record["turns"]] == WITNESS
        tools = [s.body["tools"] for s in seen[path]]
        schemas = tool_schemas("lights", TASK.public, version=TASK.env_version)
        assert all(t == schemas for t in tools), (path, tools[0])
        usage = [(len(s.prompt) // 4, len(s.prompt) // 4 * 3 // 4) for s in seen[path]]
        assert [(t["tokens"]["prompt_tokens"], t["tokens"]["cached_tokens"])
                for t in record["turns"]] == usage, path
    assert seen["inspect"][0].body["tools"][0]["function"]["parameters"]["properties"][
        "bulb"]["maximum"] == TASK.public["n"] - 1
    assert "strict" not in json.dumps(seen["inspect"][0].body["tools"])
    assert [s.prompt for s in seen["inspect"]] == [s.prompt for s in seen["run"]]
