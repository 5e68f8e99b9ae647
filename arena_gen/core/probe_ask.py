"""Asking an episode's probes: when (the schedule), how (the agent's side copy) and the record.

The runner, the judge and the ladder agree on *when*: every milestone turn of the budget
(:func:`~arena_gen.core.probes.milestone_turns`) is asked once, after that turn when the
episode reaches it, else at the episode's end on its final state (so every curve has one point
per milestone, as the ladder's certificates record them). :func:`schedule` is that rule from the
steps played; the judge recomputes it from the replay, so a recorded ``turn`` or ``label`` is
never read as a fact.

Asking never changes the episode: the agent answers through ``answer_probes`` (or the async
``aanswer_probes``) and nothing it returns or raises reaches the env. An agent without the
method, one that raises, or one that returns something other than one text per probe gets
its replies recorded as missing (graded wrong) with the reason in ``error``. An agent whose
``answer_probes`` takes an ``observation`` keyword is also given the episode's latest
observation (the LLM agent's fork needs it: its prompt for the next turn ends with it). The
tokens the agent reports for the probes (its ``probe_tokens`` after the call) are recorded per
milestone, apart from the episode's turns, so no episode cost counts them.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
import types
import weakref
from collections.abc import Sequence
from typing import Any

from arena_gen.core.probes import MILESTONES, Probe, milestone_turns
from arena_gen.core.records import MAX_PROBES_PER_MILESTONE
from arena_gen.core.task import CLIMB_FACTS, Task
from arena_gen.core.usage import clean_usage

#: Characters of one reply recorded (a reply is untrusted text of any size).
MAX_REPLY_CHARS = 4096
#: Most probes a run may ask per milestone (run.json and the CLI bound it).
MAX_PER_MILESTONE = MAX_PROBES_PER_MILESTONE


def probe_key(task: Task) -> str:
    """The sha256 every probe stream of ``task`` comes from (runs, the ladder and the judge
    alike): the task's own, as it is before its climb's facts are attached (a certificate
    cannot seed the probes it records, so build and verify draw the same questions) and
    without the verifier's wall-clock seconds (None in every frozen task; a measurement must
    not choose questions). A task read with its hash checked carries it already
    (:attr:`~arena_gen.core.task.Task.read_probe_key`)."""
    if task.read_probe_key is not None:
        return task.read_probe_key
    cert = task.certificate
    if cert.seconds is None and not any(k in cert.facts for k in CLIMB_FACTS):
        return task.sha256
    facts = {k: v for k, v in cert.facts.items() if k not in CLIMB_FACTS}
    return dataclasses.replace(task, certificate=dataclasses.replace(
        cert, facts=facts, seconds=None)).sha256


def share_label(share: float) -> str:
    """A milestone share as the curve names it (``0.25`` -> ``25%``)."""
    return f"{round(100 * share)}%"


def milestones(budget: int) -> list[tuple[int, str]]:
    """The (turn, label) milestones of a budget, in order; a turn several shares round to is
    one milestone, labelled by the largest of them."""
    labels: dict[int, str] = {}
    for share in sorted(MILESTONES):
        turns = milestone_turns(budget, [share])
        if turns:
            labels[turns[0]] = share_label(share)
    return [(t, labels[t]) for t in milestone_turns(budget)]


def schedule(budget: int, steps: int) -> list[tuple[int, str]]:
    """The (turn asked after, label) of each milestone of an episode that played ``steps``
    turns under ``budget``: its own turn when reached, else the episode's last."""
    return [(min(t, steps), label) for t, label in milestones(budget)]


def _takes_observation(method: Any) -> bool:
    """Whether an ``answer_probes`` accepts the ``observation`` keyword (a bound method's
    answer is its function's, worked out once: a run asks every agent at every milestone)."""
    func = method.__func__ if isinstance(method, types.MethodType) else None
    if func is None:
        return _accepts_observation(method)
    known = _TAKES_OBSERVATION.get(func)
    if known is None:
        known = _TAKES_OBSERVATION[func] = _accepts_observation(method)
    return known


#: :func:`_takes_observation` per bound method's function (dropped with the function).
_TAKES_OBSERVATION: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def _accepts_observation(method: Any) -> bool:
    """:func:`_takes_observation` read from the signature."""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "observation" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD
                                          for p in params.values())


def _replies(raw: Any, count: int) -> tuple[list[str | None], str | None]:
    """One capped text (or None) per probe, and what was wrong with ``raw`` if anything."""
    if not isinstance(raw, (list, tuple)):
        return [None] * count, f"answer_probes returned {type(raw).__name__}, not a list"
    out: list[str | None] = [r[:MAX_REPLY_CHARS] if isinstance(r, str) else None
                             for r in list(raw)[:count]]
    out += [None] * (count - len(out))
    problem = (None if len(raw) == count
               else f"answer_probes returned {len(raw)} replies for {count} probes")
    return out, problem


def milestone_record(index: int, turn: int, label: str, probes: Sequence[Probe],
                     raw: Any, error: str | None, agent: Any, seconds: float) -> dict[str, Any]:
    """One milestone as the trajectory records it: the probes as asked (no answers), the
    replies, the probe tokens and any failure."""
    replies, problem = _replies(raw, len(probes)) if error is None else ([None] * len(probes),
                                                                         error)
    tokens, _ = clean_usage(getattr(agent, "probe_tokens", None) if error is None else None)
    record: dict[str, Any] = {
        "index": index, "turn": turn, "label": label,
        "probes": [{k: v for k, v in p.to_dict().items() if k != "subject"} for p in probes],
        "replies": replies, "seconds": round(seconds, 6)}
    if tokens:
        record["tokens"] = tokens
    if problem is not None:
        record["error"] = problem[:2000]
    return record


def _missing(agent: Any) -> str | None:
    if callable(getattr(agent, "aanswer_probes", None)) or callable(
            getattr(agent, "answer_probes", None)):
        return None
    return f"agent {getattr(agent, 'name', type(agent).__name__)!r} does not answer probes"


def ask(agent: Any, probes: Sequence[Probe], observation: str
        ) -> tuple[Any, str | None, float]:
    """The agent's replies (as returned), the failure if any, and the seconds it took."""
    t0 = time.perf_counter()
    error = _missing(agent)
    raw: Any = None
    if error is None:
        method = agent.answer_probes
        try:
            raw = (method(list(probes), observation=observation)
                   if _takes_observation(method) else method(list(probes)))
        except Exception as exc:  # an agent that fails to answer scores wrong, nothing more
            error = f"{type(exc).__name__}: {exc}"
    return raw, error, time.perf_counter() - t0


async def aask(agent: Any, probes: Sequence[Probe], observation: str
               ) -> tuple[Any, str | None, float]:
    """:func:`ask` awaiting ``aanswer_probes`` when the agent has it."""
    method = getattr(agent, "aanswer_probes", None)
    if not callable(method):
        return ask(agent, probes, observation)
    t0 = time.perf_counter()
    raw: Any = None
    error = None
    try:
        raw = await (method(list(probes), observation=observation)
                     if _takes_observation(method) else method(list(probes)))
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
    return raw, error, time.perf_counter() - t0
