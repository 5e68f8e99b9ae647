"""Leak-free views (#25): every view of every registered (env, version) shows the agent's view
and nothing hidden. Checked: the TaskView in both modes, ``arena-gen show`` (text and JSON) in
both modes, the inspect Sample (metadata and serialised form) and the eval log of the offline
``mockllm/model`` run. Hidden means: a ``world``/``witness``/``certificate``/``params`` field,
the witness's actions, the certificate's facts, the params' names and values, the world's
distinctive values (energy's shift day and patterns, lights' conditions, trading's W, repo's
hidden rules and error texts), and every rules-text line, unless the mode's rules text (or the
task's public record and first observation, which the agent is shown) discloses them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import built_tasks_of

from arena_gen.agents.llm_prompts import build_messages
from arena_gen.cli import main
from arena_gen.core import registry
from arena_gen.core.agent import MODES, TaskView
from arena_gen.core.canon import sha256_of
from arena_gen.core.registry import make_env
from arena_gen.core.suite_io import read_suite, resolve_suite, write_suite
from arena_gen.core.task import Task

#: Keys no view may hold: the hidden world, the certificate and its parts, the generator's knobs.
HIDDEN_KEYS = {"world", "witness", "certificate", "params", "seed_path", "ladder",
               "verifier_version", "solvable"}
#: Headings and labels of ``show --reveal``; none may appear in the agent's view.
REVEAL_LABELS = ("params:", "seed path:", "witness:", "solvable=", "min_steps=", "facts:",
                 "-- hidden", "-- certificate", "-- baseline ladder")
NUMBER = re.compile(r"-?\d+\.\d+")
#: Fields of an inspect log sample that inspect writes (clocks, ids): not arena-gen's text.
CLOCKS = {"latency", "seconds", "working_time", "total_time", "time", "working_start",
          "timestamp", "started_at", "completed_at", "uuid", "id", "span_id", "event_id"}
TASKS_PER_SPEC = 2


def leaves(obj: Any, skip: frozenset[str] = frozenset()) -> list[Any]:
    """Every scalar of a JSON tree, keys included (values under ``skip`` keys left out)."""
    if isinstance(obj, dict):
        out: list[Any] = []
        for k, v in obj.items():
            out.append(str(k))
            if str(k) not in skip:
                out += leaves(v, skip)
        return out
    if isinstance(obj, (list, tuple)):
        return [x for v in obj for x in leaves(v, skip)]
    return [obj]


def keys_of(obj: Any) -> set[str]:
    """The keys of a JSON tree that hold something (a TaskView's ``world=None`` holds nothing)."""
    if isinstance(obj, dict):
        return ({str(k) for k, v in obj.items() if v is not None}
                | {k for v in obj.values() for k in keys_of(v)})
    if isinstance(obj, (list, tuple)):
        return {k for v in obj for k in keys_of(v)}
    return set()


def text_of(obj: Any, skip: frozenset[str] = frozenset()) -> str:
    """A view as one searchable text: its strings raw (no JSON escaping), its numbers as repr."""
    if isinstance(obj, str):
        return obj
    return "\n".join(str(x) for x in leaves(obj, skip)) + "\n" + json.dumps(obj, sort_keys=True)


def first_observation(task: Task) -> str:
    return str(make_env(task).reset(seed=None)[0])


class Secrets:
    """What of ``task`` an agent in ``mode`` must not be shown, and how to look for it."""

    def __init__(self, task: Task, mode: str, *, prompt: bool = False) -> None:
        rules = task.rules_text if mode == "with-rules" else None
        observation = first_observation(task)
        # what the agent is shown: the public record, the first observation, the mode's rules
        # and, for a model (``prompt``), the LLM prompt built from those alone (its templates'
        # example commands)
        messages = build_messages(env=task.env, public=task.public, rules_text=rules,
                                  history=[], observation=observation, window=None,
                                  budget=task.budget, version=task.env_version) if prompt else []
        allowed = "\n".join([json.dumps(task.public, sort_keys=True), text_of(task.public),
                             observation, task.id, rules or "",
                             *(m["content"] for m in messages)])
        shown = set(NUMBER.findall(allowed))
        self.task, self.mode = task, mode
        #: Float values of the world and the certificate's facts (four or more decimals).
        facts = leaves(task.certificate.facts, frozenset({"ladder"}))  # its rungs: agent names
        hidden_floats = [x for x in leaves(task.world) + facts
                         if isinstance(x, float) and len(repr(x).split(".")[-1]) >= 4]
        self.numbers = {repr(x) for x in hidden_floats} - shown
        texts: set[str] = set()
        # strings of the world (error texts, hidden rule kinds) and the certificate's facts
        texts |= {x for x in leaves(task.world) + facts if isinstance(x, str) and len(x) >= 10}
        # every world field's JSON, whole (lights' conditions, trading's matrix, energy's
        # patterns), in both spellings; not a field of numbers the agent is shown (trading's
        # initial prices, in its first observation)
        for value in task.world.values():
            floats = [repr(x) for x in leaves(value) if isinstance(x, float)]
            if floats and set(floats) <= shown:
                continue
            if isinstance(value, (list, dict)) and len(json.dumps(value)) >= 10:
                texts |= {json.dumps(value, sort_keys=True),
                          json.dumps(value, sort_keys=True, separators=(",", ":"))}
        # every line of the rules text (what with-rules mode discloses)
        texts |= {line.strip() for line in task.rules_text.splitlines()
                  if len(line.strip()) >= 25}
        # the witness: its distinctive actions and its opening sequence
        witness = list(task.certificate.witness)
        texts |= {a for a in witness if len(a) >= 8}
        if len(witness) >= 3:
            texts |= {" ".join(witness[:3]), json.dumps(witness[:3]), ",".join(witness[:3])}
        # the params, as the old ``show`` printed them and by name
        texts |= {json.dumps(task.params, sort_keys=True)}
        texts |= {f'"{k}"' for k in task.params if k not in task.public}
        self.texts = {t for t in texts if t not in allowed}
        shifts = task.params.get("shift_days") or ([task.params["shift_day"]]
                                                   if task.params.get("shift_day") is not None
                                                   else [])
        #: Energy's regime shifts (v2: one ``shift_day``, v3: ``shift_days``): the days on which
        #: the hidden patterns change.
        self.shift_days = [] if mode == "with-rules" else [int(d) for d in shifts]
        #: Per day, whether the shown text never holds that number (else it is looked for as
        #: a day).
        self.bare_days = {int(d): not re.search(rf"(?<![\d.]){d}(?![\d])", allowed)
                          for d in shifts}

    def found(self, view: Any, *, what: str, skip: frozenset[str] = frozenset(),
              loose_numbers: bool = False) -> list[str]:
        """The hidden things ``view`` shows. ``loose_numbers``: the view holds clocks and token
        counts, so hidden numbers are looked for in its texts only, and the shift day as a day
        (``day 150``), as also when the shown text holds that number (an example's 150)."""
        text = text_of(view, skip)
        bad = [f"{what}: key {k!r}" for k in sorted(keys_of(view) & HIDDEN_KEYS)]
        bad += [f"{what}: {t[:80]!r}" for t in sorted(self.texts) if t in text]
        # with clocks about, numbers are looked for in the texts only (prompts, observations,
        # feedback), not among JSON numbers (a latency of 0.0044 is no trading noise entry)
        numbers = text if not loose_numbers else "\n".join(
            x for x in leaves(view, skip) if isinstance(x, str))
        bad += [f"{what}: number {n}"
                for n in sorted(self.numbers & set(NUMBER.findall(numbers)))]
        for shift_day in self.shift_days:
            day = rf"(?<![\w.]){shift_day}(?![\d])"  # not inside a name (sha256)
            bare = self.bare_days[shift_day] and not loose_numbers
            if re.search(day if bare else rf"(?i)day {day}", text):
                bad.append(f"{what}: the shift day {shift_day}")
        return bad


#: One key per registered (env, version), and released Challenge energy (params with a shift day).
KEYS = [*(f"{s.name}-v{s.version}" for s in registry.all_specs()), "energy-challenge"]


@functools.cache
def tasks_of(key: str) -> tuple[Task, ...]:
    """A few tasks of ``key``: built ones of an (env, version), or released Challenge energy
    tasks (whose params carry a shift day); built once, when a test first needs them."""
    if key == "energy-challenge":
        tasks = read_suite("challenge", envs=["energy"]).tasks["energy"][:TASKS_PER_SPEC]
        assert all(t.params.get("shift_days") for t in tasks)
        return tuple(tasks)
    name, version = key.rsplit("-v", 1)
    return tuple(built_tasks_of(name, int(version), count=TASKS_PER_SPEC))


def write_group(folder: Path, tasks: list[Task]) -> Path:
    """A suite folder holding ``tasks`` (ids unique), its manifest the released Lite's edited."""
    manifest = json.loads((resolve_suite("lite") / "manifest.json").read_text())
    by_env: dict[str, list[Task]] = {}
    for task in tasks:
        by_env.setdefault(task.env, []).append(task)
    hashes = {t.id: t.sha256 for t in tasks}
    manifest.pop("calibration", None)
    manifest.update(counts={e: len(v) for e, v in by_env.items()},
                    env_versions={e: v[0].env_version for e, v in by_env.items()},
                    tasks=dict(sorted(hashes.items())),
                    suite_sha256=sha256_of(dict(sorted(hashes.items()))))
    return write_suite(folder, manifest, by_env)


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every task of :data:`KEYS` in a suite folder, by task sha256 (one folder per group of
    tasks with distinct ids: the n-th version of each env)."""
    groups: dict[int, list[Task]] = {}
    for key in KEYS:
        for task in tasks_of(key):
            group = next(g for g in range(len(KEYS) + 1)
                         if task.id not in {t.id for t in groups.get(g, [])})
            groups.setdefault(group, []).append(task)
    root = tmp_path_factory.mktemp("view-suites")
    return {t.sha256: path for g, tasks in groups.items()
            for path in [write_group(root / f"group{g}", tasks)] for t in tasks}


def test_secrets_are_found_in_the_whole_task() -> None:
    """The detector itself: the full task record shows every kind of secret (else a clean
    result below would mean nothing)."""
    for key in KEYS:
        for task in tasks_of(key):
            for mode in MODES:
                secrets = Secrets(task, mode)
                found = secrets.found(task.to_dict(), what="task")
                assert any("key 'world'" in f for f in found), task.id
                assert any("key 'witness'" in f for f in found), task.id
                assert len(found) > 5, (task.id, found)
    energy = tasks_of("energy-challenge")[0]
    found = Secrets(energy, "inductive").found(energy.to_dict(), what="task")
    assert any(f.endswith(f"the shift day {energy.params['shift_days'][0]}") for f in found)
    assert not any("shift day" in f for f in Secrets(energy, "with-rules").found(
        energy.to_dict(), what="task"))


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("mode", MODES)
def test_taskview_and_show_hold_only_the_agents_view(key: str, mode: str,
                                                     suites: dict[str, Path]) -> None:
    tasks = tasks_of(key)
    runner = CliRunner()
    for task in tasks:
        secrets = Secrets(task, mode)
        view = TaskView.of(task, mode)
        assert secrets.found(dataclasses.asdict(view), what="TaskView") == []
        base = ["show", task.id, "--suite", str(suites[task.sha256]), "--mode", mode]
        out = runner.invoke(main, base, catch_exceptions=False)
        assert out.exit_code == 0, out.output
        text = out.output
        assert secrets.found(text, what="show") == []
        assert [label for label in REVEAL_LABELS if label in text] == []
        # exactly the agent's view: budget, the mode's rules, intro and first observation
        observation = first_observation(task)
        assert f"budget {task.budget} turns" in text and observation in text
        assert task.public["intro"] in text
        assert (task.rules_text in text) == (mode == "with-rules")
        out = runner.invoke(main, [*base, "--json"], catch_exceptions=False)
        data = json.loads(out.output)
        assert secrets.found(data, what="show --json") == []
        assert data == {"task_id": task.id, "env": task.env, "env_version": task.env_version,
                        "mode": mode, "budget": task.budget, "public": task.public,
                        "rules_text": task.rules_text if mode == "with-rules" else None,
                        "observation": observation}
        # --reveal still shows everything, the ladder included
        out = runner.invoke(main, [*base, "--reveal"], catch_exceptions=False)
        assert "params: " in out.output and "witness: " in out.output
        assert json.dumps(task.world, sort_keys=True) in out.output
        if "ladder" in task.certificate.facts:
            assert "-- baseline ladder (re-played by verify) --" in out.output


inspect_ai = pytest.importorskip("inspect_ai")

from arena_gen.inspect import suite_dataset, suite_task  # noqa: E402
from arena_gen.inspect.dataset import first_prompt  # noqa: E402

SAMPLE_KEYS = {"task_id", "suite", "suite_sha256", "mode", "env", "budget"}


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("mode", MODES)
def test_inspect_samples_hold_only_the_agents_view(key: str, mode: str,
                                                   suites: dict[str, Path]) -> None:
    tasks = tasks_of(key)
    for task in tasks:
        [sample] = suite_dataset(str(suites[task.sha256]), tasks=[task.id], mode=mode)
        assert sample.id == task.id and sample.input == first_prompt(task, mode)
        assert set(sample.metadata or {}) == SAMPLE_KEYS
        assert sample.metadata["task_id"] == task.id
        secrets = Secrets(task, mode, prompt=True)
        assert secrets.found(sample.metadata, what="metadata") == []
        assert secrets.found(json.loads(sample.model_dump_json()), what="sample") == []


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_the_offline_mockllm_eval_log_holds_no_hidden_value(mode: str,
                                                            suites: dict[str, Path]) -> None:
    """The eval log of ``--model mockllm/model`` (the CI command's model) over one task of
    every (env, version), as written to disk and read back: samples, events, store and
    attachments show nothing hidden; the judge's scores hold its findings, no hidden field.
    A message limit stops each episode after a few turns (mockllm's reply is never a valid
    action, so later turns repeat the same state), and the judge still scores the turns played
    (``quit``)."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log

    firsts = {k: tasks_of(k)[0] for k in KEYS}
    folders: dict[Path, list[str]] = {}
    for task in firsts.values():
        folders.setdefault(suites[task.sha256], []).append(task.id)
    evals = [suite_task(str(folder), tasks=",".join(ids), mode=mode)
             for folder, ids in folders.items()]
    logs = inspect_eval(evals, model="mockllm/model", display="none",
                        log_dir=tempfile.mkdtemp(), log_samples=True, message_limit=12)
    by_key = {(str(suites[t.sha256]), t.id): t for t in firsts.values()}
    seen = set()
    for log in logs:
        assert log.status == "success", log.error
        log = read_eval_log(log.location)  # the serialised form
        header = json.loads(log.eval.model_dump_json())
        assert keys_of(header) & HIDDEN_KEYS == set()
        for sample in log.samples or []:
            task = by_key[(str(log.eval.dataset.location), str(sample.id))]
            seen.add((str(log.eval.dataset.location), task.id))
            dumped = json.loads(sample.model_dump_json())
            # the judge's output (written after the episode) is checked apart: its findings
            # name rubric items and the thresholds they were judged against
            scores = [dumped.pop("scores"), *(e for e in dumped["events"]
                                              if e.get("event") == "score")]
            dumped["events"] = [e for e in dumped["events"] if e.get("event") != "score"]
            assert set(dumped["metadata"]) == SAMPLE_KEYS
            secrets = Secrets(task, mode, prompt=True)
            assert secrets.found(dumped, what="log sample", skip=frozenset(CLOCKS),
                                 loose_numbers=True) == []
            assert keys_of(scores) & HIDDEN_KEYS == set()
            assert scores[0]["judge_scorer"]["metadata"]["findings"]
            assert scores[0]["judge_scorer"]["metadata"]["end_reason"] == "quit"
            assert scores[0]["judge_scorer"]["value"]["steps"] == 5  # 1 + 2 * 5 messages
            assert dumped["limit"]["type"] == "message"
    assert seen == set(by_key)
