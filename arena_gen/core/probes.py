"""World-model probes: questions whose exact answers follow from a task's hidden world and state.

Success is a proxy for knowing a hidden rule, and proxies get gamed; a probe asks the rule
directly. At milestones of an episode (by default 25, 50, 75 and 100 % of its budget, and at its
end) a copy of the agent that cannot act is asked a few questions drawn from the task's own seed
tree; its replies are judged against the answers the game computes from the hidden world. Probes
never change the episode, its success or its cost accounting.

The contract (the one shared by games, agents, the runner and the judge):

- a game that offers probes implements :class:`ProbeGame`: ``probes(state, visited, rng,
  count)`` draws the questions (answers balanced so that a constant or uniform guess scores at
  most chance), ``probe_answer(state, probe)`` is the exact answer and ``probe_correct(probe,
  answer, reply)`` judges a reply strictly (an unparseable reply is wrong, never an error);
- such a game states, in a class attribute ``probe_chance`` (kind -> share), what a uniform
  guess or a constant reply scores per kind (the answers' balance makes the two equal);
- an agent that can answer implements :class:`ProbeAnswerer` (scripted learners from their own
  model, the random agent by guessing, the with-rules planner from the rules, the LLM agent in a
  forked conversation without tools);
- the trajectory records each milestone's turn and the replies; the judge replays the actions to
  that turn, draws the same probes from :func:`probe_seed` and judges the replies itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

#: Milestones as shares of the budget; the end of an episode is a further milestone.
MILESTONES = (0.25, 0.5, 0.75, 1.0)
#: Probes asked per milestone unless a run says otherwise.
PROBES_PER_MILESTONE = 8
#: The spawn-key namespace of probe streams (beside attempts, the task level and streams).
PROBE_NAMESPACE = 0x50524F42  # "PROB"

StateT = TypeVar("StateT", contravariant=True)


@dataclass(frozen=True)
class Probe:
    """One question about the hidden world, as an agent is shown it (never with its answer)."""

    #: Unique within one milestone (``q0``, ``q1``, ...).
    id: str
    #: The game's kind of question (e.g. ``toggle_changes``); figures are reported per kind.
    kind: str
    #: The self-contained question text, ending with the exact answer form expected.
    question: str
    #: The allowed answers when the answer is categorical (a guesser picks one of these).
    choices: tuple[str, ...] | None = None
    #: The question in structured, JSON-ready form (state, bulb, news vector, command, ...), for
    #: scripted answerers; it never holds the answer.
    subject: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form a trajectory or a prompt carries."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "question": self.question,
                               "subject": self.subject}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        return out


class ProbeGame(Protocol[StateT]):
    """What a game offering probes implements (next to the :class:`~.game.Game` contract)."""

    def probes(self, state: StateT, visited: Sequence[StateT], rng: np.random.Generator,
               count: int) -> list[Probe]:
        """``count`` questions about ``state`` (and, where the kind needs them, states the
        agent has and has not ``visited``), drawn with ``rng`` only."""
        ...

    def probe_answer(self, state: StateT, probe: Probe) -> str:
        """The exact answer to ``probe`` asked at ``state``, in canonical text form."""
        ...

    def probe_correct(self, probe: Probe, answer: str, reply: str) -> bool:
        """Whether ``reply`` (parsed strictly) matches ``answer``; unparseable replies are
        wrong."""
        ...


@runtime_checkable
class ProbeAnswerer(Protocol):
    """An agent that can answer probes without acting (its episode is not changed)."""

    def answer_probes(self, probes: Sequence[Probe]) -> list[str]:
        """One reply text per probe, in order."""
        ...


def milestone_turns(budget: int, milestones: Sequence[float] = MILESTONES) -> list[int]:
    """The turns after which probes are asked: ``ceil(share x budget)``, at least 1, distinct,
    in order (the end of an episode that stops earlier is asked as well, by the runner)."""
    turns = sorted({max(1, math.ceil(share * budget)) for share in milestones if share > 0})
    return [t for t in turns if t <= budget]


def probe_seed(task_sha256: str, attempt: int, milestone: int) -> np.random.SeedSequence:
    """The probe stream of one milestone of one attempt of one task: entropy from the task's
    own sha256 (unique per task, public and sealed alike, so never shared between tasks),
    spawned by attempt and milestone index."""
    if len(task_sha256) != 64 or any(c not in "0123456789abcdef" for c in task_sha256):
        raise ValueError(f"a task sha256 is 64 lowercase hex digits, got {task_sha256[:80]!r}")
    words = [int(task_sha256[i:i + 8], 16) for i in range(0, 64, 8)]
    return np.random.SeedSequence(words, spawn_key=(PROBE_NAMESPACE, int(attempt),
                                                    int(milestone)))


#: Longest reply the parsers read (a longer one is wrong, never parsed).
MAX_REPLY_CHARS = 200
_QUOTES = "\"'`*"


def parse_choice(reply: Any, choices: Sequence[str]) -> str | None:
    """The choice a reply names exactly (case-insensitive; surrounding whitespace, quotes,
    backticks, asterisks and one final period tolerated), else None: the strict grammar every
    categorical probe states."""
    if not isinstance(reply, str) or len(reply) > MAX_REPLY_CHARS:
        return None
    text = reply.strip().strip(_QUOTES).strip()
    if text.endswith("."):
        text = text[:-1].rstrip()
    text = text.strip(_QUOTES).strip().lower()
    for choice in choices:
        if text == choice.lower():
            return choice
    return None


def choice_correct(probe: Probe, answer: str, reply: Any) -> bool:
    """Whether ``reply`` names exactly the choice ``answer`` (the judge of categorical probes)."""
    return probe.choices is not None and parse_choice(reply, probe.choices) == answer


def balanced(rng: np.random.Generator, count: int, choices: Sequence[Any]) -> list[Any]:
    """``count`` target answers in which every choice appears ``count // len(choices)`` times
    (the remainder drawn without repeats), shuffled: a constant reply then scores at most
    ``1 / len(choices)`` plus the remainder's share, and a uniform guess exactly chance."""
    k = len(choices)
    picks = [choices[i % k] for i in range(count - count % k)]
    picks += [choices[int(i)] for i in rng.permutation(k)[:count % k]]
    order = rng.permutation(len(picks))
    return [picks[int(i)] for i in order]


def letters(k: int) -> tuple[str, ...]:
    """The option labels of a k-way multiple-choice probe: ``A``, ``B``, ..."""
    return tuple(chr(ord("A") + i) for i in range(k))


def guess(probes: Sequence[Probe], rng: np.random.Generator) -> list[str]:
    """A uniform guess per probe among its choices (what a rung that has no model answers)."""
    return [probe.choices[int(rng.integers(len(probe.choices)))] if probe.choices else ""
            for probe in probes]


def guess_stream(rng: np.random.Generator) -> np.random.Generator:
    """A guessing stream beside an agent's own ``rng`` (spawned from its seed sequence, so
    answering probes never draws from the stream that picks the agent's actions)."""
    seq = rng.bit_generator.seed_seq
    if not isinstance(seq, np.random.SeedSequence):
        raise TypeError("an agent's rng is built from a numpy SeedSequence")
    child = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, PROBE_NAMESPACE))
    return np.random.Generator(np.random.PCG64(child))


def offers_probes(game: Any) -> bool:
    """Whether ``game`` implements the probe contract (the three methods of :class:`ProbeGame`)."""
    return all(callable(getattr(game, name, None))
               for name in ("probes", "probe_answer", "probe_correct"))


def draw(game: Any, state: Any, visited: Sequence[Any], task_sha256: str, attempt: int,
         milestone: int, count: int = PROBES_PER_MILESTONE) -> list[Probe]:
    """The probes of one milestone, drawn from its own stream: the runner asks these, the judge
    draws them again from the replayed state and gets the same questions."""
    rng = np.random.Generator(np.random.PCG64(probe_seed(task_sha256, attempt, milestone)))
    return list(game.probes(state, visited, rng, count))


def grade(game: Any, state: Any, probes: Sequence[Probe], replies: Sequence[Any]) -> list[bool]:
    """Per probe, whether the reply is right (a missing or non-text reply is wrong)."""
    out = []
    for n, probe in enumerate(probes):
        reply = replies[n] if n < len(replies) else None
        out.append(isinstance(reply, str)
                   and bool(game.probe_correct(probe, game.probe_answer(state, probe), reply)))
    return out
