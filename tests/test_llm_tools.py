"""``--action-format tools``: the env's actions as tool schemas, played from ``tool_calls``.

Against the loopback OpenAI-compatible server (:mod:`fake_openai`): tool-call replies, malformed
arguments, parallel calls, a provider that rejects ``tools``, and a whole lights episode run and
then scored by ``arena-gen score``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_openai import FakeOpenAI, Out, Seen

from arena_gen.agents.llm import LLMAgent
from arena_gen.agents.llm_tools import (
    TOOLS_NO_CALL,
    action_tools,
    call_action,
    read_calls,
    tool_schemas,
)
from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.agent import TaskView
from arena_gen.core.suite_io import read_suite, write_suite
from arena_gen.core.task import Task
from arena_gen.runner.run import RunConfig, run_suite
from arena_gen.runner.rundir import RunDir
from arena_gen.suite.build import build_suite

LITE = read_suite("lite")
KEY = "sk-test-tools-5b2d4680SECRET"


def first(env: str) -> Task:
    return LITE.tasks[env][0]


def as_call(env: str, action: str) -> tuple[str, dict[str, Any]]:
    """A witness action text as the tool call that writes it (the test's own inverse)."""
    if env == "lights":
        return "toggle", {"bulb": int(action)}
    if env == "repo":
        return "run_command", {"command": action}
    return {"energy": "dispatch", "trading": "trade"}[env], json.loads(action)


def lights_call(env: str, action: str) -> tuple[str, str]:
    name, args = as_call(env, action)
    return name, json.dumps(args)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return KEY


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-task suite: the first lite lights task (built again, as the lite seed does)."""
    built = build_suite("lite", 7, ["lights"], counts={"lights": 1})
    assert built.tasks["lights"][0].id == first("lights").id
    return write_suite(tmp_path_factory.mktemp("suite") / "one", built.manifest, built.tasks)


@pytest.fixture
def one(suite: Path) -> list[str]:
    """The command-line selection of that suite."""
    return ["--suite", str(suite)]


def config(server: FakeOpenAI, **over: Any) -> dict[str, Any]:
    cfg = {"model": "fake-model", "base_url": server.url, "temperature": 0.6, "history": None,
           "max_connections": 2, "timeout": 5.0, "retries": 1, "backoff": 0.005,
           "action_format": "tools"}
    cfg.update(over)
    return cfg


def run_tools(suite: Path, out: Path, server: FakeOpenAI, **over: Any) -> RunDir:
    return run_suite(RunConfig(suite=str(suite), agent="llm", attempts=1, out=str(out),
                               agent_config=config(server, **over)))


# -- schemas from the one grammar ------------------------------------------------------------------
@pytest.mark.parametrize("env", ["lights", "trading", "energy", "repo"])
def test_schemas_come_from_the_env_grammar_and_replay_its_witness(env: str) -> None:
    task = first(env)
    grammar = registry.part_for(env, task.env_version, "grammar").load("grammar")
    schemas = tool_schemas(env, task.public, version=task.env_version)
    assert [s["function"]["name"] for s in schemas] == [t.name for t in grammar.tools]
    assert all(s["type"] == "function" and s["function"]["parameters"]["type"] == "object"
               for s in schemas)
    json.dumps(schemas)  # a request body
    # Every witness action, sent as a tool call, plays text that solves the task.
    game = registry.get(task.env, task.env_version).make(task)
    game.reset()
    for action in task.certificate.witness:
        name, args = as_call(env, action)
        text, why = call_action(env, task.public, name, json.dumps(args),
                                version=task.env_version)
        assert why is None
        game.step(text)
    assert game.success


def test_lights_schema_and_rendering() -> None:
    task = first("lights")
    [schema] = tool_schemas("lights", task.public, version=task.env_version)
    n = task.public["n"]
    assert schema["function"]["parameters"]["properties"]["bulb"] == {
        "type": "integer", "minimum": 0, "maximum": n - 1,
        "description": f"the bulb index, 0 to {n - 1}"}
    v = task.env_version
    assert call_action("lights", task.public, "toggle", '{"bulb": 3}', version=v) == ("3", None)
    assert call_action("lights", task.public, "toggle", '{"bulb": 3.0}', version=v) == (
        "3", None)
    # out of range is the game's to judge, as the text "99" is
    assert call_action("lights", task.public, "toggle", '{"bulb": 99}', version=v) == (
        "99", None)


def test_an_env_without_tools_gets_the_generic_act_tool() -> None:
    [tool] = action_tools("no-such-env", {"action_format": "a word"}, version=None)
    assert tool.name == "act"
    assert call_action("no-such-env", {}, "act", '{"action": "go"}', version=None) == (
        "go", None)


@pytest.mark.parametrize(("name", "arguments", "why"), [
    ("toggle", '{"bulb": ', "the arguments are not JSON (Expecting value)"),
    ("flip", '{"bulb": 1}', "unknown tool 'flip' (tools: toggle)"),
    ("toggle", "{}", "arguments misses the required field 'bulb'"),
    ("toggle", '{"bulb": "two"}', "arguments.bulb must be integer, got string"),
    ("toggle", '{"bulb": 1.5}', "arguments.bulb must be integer, got number"),
    ("toggle", '{"bulb": 1, "also": 2}', "arguments has an unknown field 'also'"),
    ("toggle", "[1]", "the arguments are a JSON array, not an object"),
])
def test_malformed_calls_say_why(name: str, arguments: str, why: str) -> None:
    task = first("lights")
    assert call_action("lights", task.public, name, arguments,
                       version=task.env_version) == (None, why)


def test_trading_and_energy_type_checks() -> None:
    trading, energy = first("trading"), first("energy")

    def call(task: Task, name: str, arguments: str) -> tuple[str | None, str | None]:
        return call_action(task.env, task.public, name, arguments, version=task.env_version)

    assert call(trading, "trade", "{}") == ("{}", None)
    assert call(trading, "trade", '{"sell": {"S0": 2}, "buy": {"S1": 1}}') == (
        '{"buy": {"S1": 1}, "sell": {"S0": 2}}', None)
    assert call(trading, "trade", '{"buy": {"S0": "x"}}') == (
        None, "arguments.buy.S0 must be integer, got string")
    assert call(energy, "dispatch", '{"thermal": 1, "wind": 2, "solar": 3}') == (
        None, "arguments misses the required field 'battery'")
    assert call(energy, "dispatch", '{"thermal": NaN, "wind": 2, "solar": 3, "battery": 0}') == (
        None, "arguments.thermal must be a finite number")


def test_parallel_calls_play_the_first_and_record_the_rest() -> None:
    calls = [{"name": "toggle", "arguments": '{"bulb": 2}'},
             {"name": "toggle", "arguments": '{"bulb": 5}'},
             {"name": "flip", "arguments": "{}"}]
    task = first("lights")
    action, record = read_calls("lights", task.public, calls, version=task.env_version)
    assert action == "2"
    assert record == {"tool_call": {"name": "toggle", "arguments": '{"bulb": 2}'},
                      "tool_calls_ignored": [{"name": "toggle", "arguments": '{"bulb": 5}'},
                                             {"name": "flip", "arguments": "{}"}]}
    assert read_calls("lights", task.public, [], version=task.env_version) == (
        None, {"tool_error": "the reply made no tool call"})


def test_the_odyssey_harness_refuses_tools() -> None:
    with pytest.raises(ValueError, match="keeps the paper's <action> tags"):
        LLMAgent(model="m", harness="odyssey", action_format="tools")
    with pytest.raises(ValueError, match="action format must be one of text, tools"):
        LLMAgent(model="m", action_format="json")
    result = CliRunner().invoke(main, ["run", "--suite", "odyssey-lite", "--agent", "llm",
                                       "--model", "m", "--harness", "odyssey",
                                       "--action-format", "tools", "--out", "unused"])
    assert result.exit_code == 2
    assert "--action-format tools does not apply to --harness odyssey" in result.output
    assert not Path("unused").exists()


def test_prompt_and_payload_in_the_tools_format() -> None:
    task = first("lights")
    view = TaskView.of(task, "inductive")
    text, tools = LLMAgent(model="m"), LLMAgent(model="m", action_format="tools")
    for agent in (text, tools):
        agent.reset(view, "inductive", None)  # type: ignore[arg-type]
    assert "tools" not in text.payload("obs")  # the default format sends none
    body = tools.payload("obs")
    assert body["tools"] == tool_schemas("lights", task.public, version=task.env_version)
    prompt = "\n".join(m["content"] for m in body["messages"])
    assert "<action>" not in prompt
    assert "call exactly one of the provided tools" in prompt
    assert "Play it by calling one tool (toggle)" in prompt
    assert "Think briefly, then call exactly one tool." in prompt
    # the rest of the prompt is the text format's
    assert [m["content"] for m in body["messages"]][1].split("## Actions")[0] == \
        [m["content"] for m in text.payload("obs")["messages"]][1].split("## Actions")[0]


# -- against the loopback server -------------------------------------------------------------------
def test_whole_lights_episode_in_tools_format_is_run_and_scored(one: list[str],
                                                                tmp_path: Path) -> None:
    task = first("lights")
    witness = list(task.certificate.witness)
    runs = {}
    for fmt in ("tools", "text"):
        with FakeOpenAI([task], key=KEY, to_call=lights_call) as server:
            out = runs[fmt] = tmp_path / fmt
            result = CliRunner().invoke(main, [
                "run", *one, "--agent", "llm", "--model", "fake-model",
                "--base-url", server.url, "--action-format", fmt, "--out", str(out),
                "--display", "plain"])
            assert result.exit_code == 0, result.output
            if fmt == "tools":
                assert all(s.body["tools"] == tool_schemas("lights", task.public,
                                                           version=task.env_version)
                           for s in server.seen)
                assert all("<action>" not in s.prompt for s in server.seen)
            else:
                assert all("tools" not in s.body for s in server.seen)
        scored = CliRunner().invoke(main, ["score", str(out), "--display", "plain"])
        assert scored.exit_code == 0, scored.output
    [record] = RunDir(runs["tools"]).records()
    assert record["end_reason"] == "success"
    assert [t["action"] for t in record["turns"]] == witness
    turn = record["turns"][0]
    assert turn["tool_call"] == {"name": "toggle",
                                 "arguments": json.dumps({"bulb": int(witness[0])})}
    assert turn["finish_reason"] == "tool_calls"
    assert "tool_error" not in turn and "no_action_tag" not in turn
    run_json = json.loads((runs["tools"] / "run.json").read_text())
    assert run_json["agent"]["config"]["action_format"] == "tools"
    # scored exactly as the text run of the same actions
    findings = {f: (runs[f] / "findings.jsonl").read_text() for f in runs}
    assert findings["tools"] == findings["text"]
    assert json.loads(findings["tools"])["replay"] == {
        "budget": task.budget, "invalid_turns": 0, "loop_turns": 0, "steps": len(witness),
        "success": True}
    overall = json.loads((runs["tools"] / "summary.json").read_text())["overall"]
    assert (overall["pass_at_1"], overall["optimality_ratio"]) == (100.0, 1.0)
    assert_no_key(runs["tools"])


def assert_no_key(path: Path) -> None:
    for file in path.rglob("*"):
        if file.is_file():
            assert KEY not in file.read_text(encoding="utf-8", errors="replace"), file


def test_malformed_calls_get_feedback_and_cost_a_turn(suite: Path, tmp_path: Path) -> None:
    task = first("lights")
    bad = {1: Out(content="", tool_calls=[("toggle", '{"bulb": ')]),
           2: Out(content="", tool_calls=[("flip", '{"bulb": 1}')]),
           3: Out(content="", tool_calls=[("toggle", "{}")]),
           4: Out(content="I will not call a tool. <action>1</action>")}

    def fault(seen: Seen) -> Out | None:
        return bad.get(seen.turn) if seen.turn <= 4 else None

    with FakeOpenAI([task], key=KEY, fault=fault, to_call=lights_call) as server:
        rundir = run_tools(suite, tmp_path / "run", server)
        bodies = {s.turn: s.body for s in server.seen}
    [record] = rundir.records()
    turns = record["turns"]
    assert [t["turn"] for t in turns[:5]] == [1, 2, 3, 4, 5]  # each one cost a turn
    assert [t["tool_error"] for t in turns[:4]] == [
        "the arguments are not JSON (Expecting value)", "unknown tool 'flip' (tools: toggle)",
        "arguments misses the required field 'bulb'", "the reply made no tool call"]
    # the same path as a text reply without a tag: the empty action and the env's feedback
    assert all(t["action"] == "" and t["valid"] is False for t in turns[:4])
    assert len({t["feedback"] for t in turns[:4]}) == 1 and turns[0]["feedback"]
    assert turns[0]["tool_call"] == {"name": "toggle", "arguments": '{"bulb": '}
    assert "tool_call" not in turns[3]
    # the failed calls' turns, as the model reads them: its calls, then the tool's answer
    history = bodies[5]["messages"][2:]
    assert [m["role"] for m in history] == ["assistant", "tool"] * 3 + ["assistant", "user"]
    assert history[0]["tool_calls"][0]["function"] == {"name": "toggle", "arguments": "{}"}
    assert history[1]["content"].startswith(
        "Invalid call (the arguments are not JSON (Expecting value)): no action was played")
    assert history[6] == {"role": "assistant", "content": ""}
    assert history[7]["content"].startswith(TOOLS_NO_CALL)
    assert record["end_reason"] == "budget" or record["steps"] == len(turns)


def test_parallel_calls_over_the_wire(suite: Path, tmp_path: Path) -> None:
    task = first("lights")
    witness = list(task.certificate.witness)

    def fault(seen: Seen) -> Out | None:
        if seen.turn == 1:
            return Out(content="", tool_calls=[lights_call("lights", witness[0]),
                                               ("toggle", '{"bulb": 0}')])
        return None

    with FakeOpenAI([task], key=KEY, fault=fault, to_call=lights_call) as server:
        rundir = run_tools(suite, tmp_path / "run", server)
    [record] = rundir.records()
    first_turn = record["turns"][0]
    assert first_turn["action"] == witness[0]
    assert first_turn["tool_calls_ignored"] == [{"name": "toggle", "arguments": '{"bulb": 0}'}]
    assert record["end_reason"] == "success"


#: What vLLM answers a request with tools when it was started without a tool parser.
VLLM_NO_TOOLS = json.dumps({
    "object": "error", "message": '"auto" tool choice requires --enable-auto-tool-choice and '
    "--tool-call-parser to be set", "type": "BadRequestError", "param": None,
    "code": 400}).encode()


def test_a_provider_that_rejects_tools_is_an_infra_error_that_says_what_to_do(
        one: list[str], tmp_path: Path) -> None:
    task = first("lights")

    def fault(seen: Seen) -> Out:
        return Out(status=400, body=VLLM_NO_TOOLS)

    with FakeOpenAI([task], key=KEY, fault=fault) as server:
        out = tmp_path / "run"
        result = CliRunner().invoke(main, [
            "run", *one, "--agent", "llm", "--model", "fake-model",
            "--base-url", server.url, "--action-format", "tools", "--out", str(out),
            "--display", "plain"])
        assert len(server.seen) == 1  # a 400 is not retried
    assert result.exit_code == 1
    assert "run with --action-format text" in result.output
    [record] = RunDir(out).records()
    assert record["end_reason"] == "infra_error"
    assert "HTTP 400" in record["error"] and "--enable-auto-tool-choice" in record["error"]
    assert "run with --action-format text (the default) instead" in record["error"]


def test_resume_may_not_change_the_action_format(suite: Path, one: list[str],
                                                 tmp_path: Path) -> None:
    task = first("lights")
    with FakeOpenAI([task], key=KEY, to_call=lights_call) as server:
        out = tmp_path / "run"
        run_tools(suite, out, server)
        result = CliRunner().invoke(main, [
            "run", *one, "--agent", "llm", "--model", "fake-model",
            "--base-url", server.url, "--out", str(out), "--resume", "--display", "plain"])
    assert result.exit_code != 0
    assert "--action-format differs: not set now, tools in the run" in result.output


def test_tool_choice_is_sent_recorded_and_fixed_on_resume(suite: Path, one: list[str],
                                                          tmp_path: Path) -> None:
    task = first("lights")
    view = TaskView.of(task, "inductive")
    default = LLMAgent(model="m", action_format="tools")
    default.reset(view, "inductive", None)  # type: ignore[arg-type]
    assert "tool_choice" not in default.payload("obs")  # the server's default unless asked
    with pytest.raises(ValueError, match="tools action format only"):
        LLMAgent(model="m", tool_choice="required")
    with pytest.raises(ValueError, match="auto, required"):
        LLMAgent(model="m", action_format="tools", tool_choice="any")
    cmd = ["run", *one, "--agent", "llm", "--model", "fake-model", "--action-format", "tools",
           "--display", "plain"]
    with FakeOpenAI([task], key=KEY, to_call=lights_call) as server:
        out = tmp_path / "run"
        result = CliRunner().invoke(main, [*cmd, "--base-url", server.url, "--out", str(out),
                                           "--tool-choice", "required"])
        assert result.exit_code == 0, result.output
        assert server.seen and all(s.body["tool_choice"] == "required" for s in server.seen)
        run_json = json.loads((out / "run.json").read_text())
        assert run_json["agent"]["config"]["tool_choice"] == "required"
        again = CliRunner().invoke(main, [*cmd, "--base-url", server.url, "--out", str(out),
                                          "--tool-choice", "auto", "--resume"])
    assert again.exit_code != 0
    assert "--tool-choice differs: auto now, required in the run" in again.output
    text = CliRunner().invoke(main, ["run", *one, "--agent", "llm", "--model", "m",
                                     "--tool-choice", "required", "--out",
                                     str(tmp_path / "text")])
    assert text.exit_code == 2 and "--action-format tools only" in text.output


# -- the inspect_ai solver -------------------------------------------------------------------------
def test_inspect_solver_plays_tool_calls_through_inspects_tool_api() -> None:
    pytest.importorskip("inspect_ai")
    import re
    import tempfile

    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.tool import ToolCall

    from arena_gen.inspect import suite_task

    task = first("lights")
    witness = list(task.certificate.witness)
    turn_of = re.compile(r"## Current observation \(turn (\d+) of \d+\)")
    offered: list[Any] = []

    choices: list[Any] = []

    def play(messages, tools, tool_choice, config) -> ModelOutput:
        offered.append([t.model_dump(exclude_none=True) for t in tools])
        choices.append(tool_choice)
        turn = int(turn_of.findall(str(messages[-1].content))[-1])
        if turn == 1:  # an unknown tool: the turn is spent
            return ModelOutput.for_tool_call("mockllm", "flip", {"bulb": 0})
        out = ModelOutput.for_tool_call("mockllm", "toggle", {"bulb": int(witness[turn - 2])})
        if turn == 2:  # a parallel call: recorded, not played
            out.message.tool_calls = [*(out.message.tool_calls or []),
                                      ToolCall(id="x", function="toggle", arguments={"bulb": 0})]
        return out

    model = get_model("mockllm/model", custom_outputs=play)
    [log] = inspect_eval(suite_task("lite", env="lights", tasks=task.id, action_format="tools",
                                    tool_choice="required"),
                         model=model, display="none", log_dir=tempfile.mkdtemp(),
                         log_samples=True)
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.scores["judge_scorer"].value == {
        "success": 1.0, "credit": 100.0, "steps": float(len(witness) + 1),
        "agent_error": 0.0, "env_error": 0.0, "pass_at_k": 1.0,
        "induction_efficiency": (len(witness) / (len(witness) + 1)) ** 2}  # one turn spent
    turns = sample.store["arena_gen_trajectory"]["turns"]
    assert [t["action"] for t in turns] == ["", *witness]
    assert turns[0]["tool_error"] == "unknown tool 'flip' (tools: toggle)"
    assert turns[1]["tool_calls_ignored"] == [{"name": "toggle", "arguments": '{"bulb": 0}'}]
    # the same schemas as the built-in agent sends, from the public view alone
    [schema] = tool_schemas("lights", task.public, version=task.env_version)
    assert offered[0] == [{"name": "toggle", **{k: schema["function"][k]
                                                for k in ("description", "parameters")}}]
    assert "world" not in json.dumps(offered) and "witness" not in json.dumps(offered)
    assert {str(c) for c in choices} == {"any"}  # --tool-choice required, in inspect's terms


def test_the_client_reads_tool_calls_as_sent() -> None:
    from arena_gen.agents.llm_client import parse_tool_calls

    body = {"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "toggle", "arguments": '{"bulb":1}'}},
        {"id": "b", "type": "function", "function": {"name": "toggle", "arguments": {"bulb": 2}}},
        {"id": "c", "type": "custom"}, "junk"]}}]}
    assert parse_tool_calls(json.dumps(body).encode()) == [
        {"id": "a", "name": "toggle", "arguments": '{"bulb":1}'},
        {"id": "b", "name": "toggle", "arguments": '{"bulb": 2}'}]
    assert parse_tool_calls(b'{"choices": []}') == []
    assert parse_tool_calls(b"not json") == []


def test_only_errors_that_name_tools_get_the_hint() -> None:
    from arena_gen.agents.llm_tools import rejected_tools
    from arena_gen.core.agent import InfraError

    llama = InfraError("http://h/v1/chat/completions: HTTP 500: tools param requires --jinja "
                       "flag (after 6 tries)")
    assert str(rejected_tools(llama)) == (
        f"{llama} -- the endpoint seems not to accept tool calls (the request's `tools`); run "
        f"with --action-format text (the default) instead")
    other = InfraError("http://h/v1/chat/completions: HTTP 401: bad key (not retried)")
    assert rejected_tools(other) is other
