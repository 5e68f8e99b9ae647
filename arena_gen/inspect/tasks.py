"""inspect tasks: ``arena_gen/lite``, ``arena_gen/challenge`` and ``arena_gen/suite`` (any folder).

Task arguments (``-T name=value``): ``env`` (one env or a comma-separated list; default all),
``mode`` (``inductive`` or ``with-rules``), ``tasks`` (comma-separated task ids), ``history``
(past turns each prompt shows; default all), ``harness`` (``arena-gen`` or ``odyssey``, the
OdysseyArena paper's protocol), ``action_format`` (``text``: ``<action>`` tags, or ``tools``:
tool calls through inspect's tool API; arena-gen harness only), ``probes`` (world-model probes
per milestone, as ``arena-gen run --probes``; graded by :func:`.scorer.knowledge_scorer`; default
0: off) and, for ``suite``, ``path``.
Epochs reduce with :func:`.scorer.epochs_reducer` (the mean of every figure and ``pass_at_k``,
the max of success): ``--epochs 4`` reports Avg@4 and Pass@4.
"""

from __future__ import annotations

from inspect_ai import Epochs, Task, task

from arena_gen.core.suite_io import read_suite, resolve_suite
from arena_gen.inspect.dataset import suite_dataset
from arena_gen.inspect.scorer import epochs_reducer, judge_scorer, knowledge_scorer
from arena_gen.inspect.solver import model_agent

REDUCERS = [epochs_reducer()]


def _names(value: str | list[str] | None) -> list[str] | None:
    """A ``-T`` list: comma-separated text or a YAML list."""
    if value is None:
        return None
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(v).strip() for v in items if str(v).strip()] or None


def suite_task(suite: str, *, env: str | list[str] | None = None, mode: str = "inductive",
               tasks: str | list[str] | None = None, history: int | None = None,
               harness: str = "arena-gen", action_format: str = "text",
               tool_choice: str | None = None, probes: int = 0) -> Task:
    """An inspect task over a suite (released name or folder), played by the eval's model
    (``probes``: world-model probes per milestone, graded by a second scorer; 0: off)."""
    read = read_suite(resolve_suite(suite))
    dataset = suite_dataset(read, envs=_names(env), tasks=_names(tasks), mode=mode)
    scorers = [judge_scorer(harness=harness)]
    if probes:
        scorers.append(knowledge_scorer(int(probes), harness=harness))
    return Task(dataset=dataset, solver=model_agent(history=history, harness=harness,
                                          action_format=action_format, tool_choice=tool_choice,
                                          probes=int(probes)),
                scorer=scorers,
                epochs=Epochs(1, REDUCERS),
                metadata={"suite": read.manifest.get("suite"), "mode": mode, "harness": harness,
                          "suite_sha256": read.manifest.get("suite_sha256"),
                          "arena_gen_version": read.manifest.get("arena_gen_version")})


@task
def lite(env: str | None = None, mode: str = "inductive", tasks: str | None = None,
         history: int | None = None, harness: str = "arena-gen",
         action_format: str = "text", tool_choice: str | None = None, probes: int = 0) -> Task:
    """The released Lite suite (30 tasks per env)."""
    return suite_task("lite", env=env, mode=mode, tasks=tasks, history=history,
                      harness=harness, action_format=action_format, tool_choice=tool_choice,
                      probes=probes)


@task
def challenge(env: str | None = None, mode: str = "inductive", tasks: str | None = None,
              history: int | None = None, harness: str = "arena-gen",
              action_format: str = "text", tool_choice: str | None = None,
              probes: int = 0) -> Task:
    """The released Challenge suite (10 tasks per env)."""
    return suite_task("challenge", env=env, mode=mode, tasks=tasks, history=history,
                      harness=harness, action_format=action_format, tool_choice=tool_choice,
                      probes=probes)


@task
def suite(path: str, env: str | None = None, mode: str = "inductive", tasks: str | None = None,
          history: int | None = None, harness: str = "arena-gen",
          action_format: str = "text", tool_choice: str | None = None,
          probes: int = 0) -> Task:
    """Any suite folder built with ``arena-gen build`` (or a released suite's name)."""
    return suite_task(path, env=env, mode=mode, tasks=tasks, history=history,
                      harness=harness, action_format=action_format, tool_choice=tool_choice,
                      probes=probes)
