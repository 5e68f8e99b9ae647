"""Knowledge from the replay: the judge grades a trajectory's probe replies itself.

Nothing a trajectory says about its probes is trusted but the reply texts: the judge replays
the recorded actions under the owner's budget, recomputes the milestone schedule from the
replayed steps (:func:`~arena_gen.core.probe_ask.schedule`), draws each milestone's probes
again from the replayed state and visited states (:func:`~arena_gen.core.probes.draw`, the
task's own probe stream) and grades the reply recorded under that milestone's index with
:func:`~arena_gen.core.probes.grade`. A forged question, label, turn or an added answer in the
file changes nothing; a missing milestone or reply is wrong.

Per attempt this gives a knowledge curve (probes asked and right at each milestone, per kind);
:func:`knowledge_metrics` pools them per group: accuracy per milestone label, the accuracy at
each attempt's last milestone, and "knows vs succeeds" (that accuracy for the attempts that
succeeded and for those that failed).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from arena_gen.core import registry
from arena_gen.core.game import play
from arena_gen.core.probe_ask import probe_key, schedule
from arena_gen.core.probes import draw, grade, offers_probes
from arena_gen.core.task import Task
from arena_gen.scoring.judge import actions_of


def _recorded_replies(record: dict[str, Any]) -> dict[int, list[Any]]:
    """Reply lists by milestone index (the first line for an index; malformed ones ignored)."""
    out: dict[int, list[Any]] = {}
    milestones = record.get("probes")
    for m in milestones if isinstance(milestones, list) else []:
        if not isinstance(m, dict):
            continue
        index, replies = m.get("index"), m.get("replies")
        if type(index) is int and isinstance(replies, list) and index not in out:
            out[index] = replies
    return out


def judge_knowledge(task: Task, record: dict[str, Any], budget: int, per_milestone: int
                    ) -> list[dict[str, Any]] | None:
    """The attempt's knowledge curve: per scheduled milestone its index, turn, label, probes
    asked and right, and the same per kind; None when the task's game offers no probes."""
    game = registry.make_game(task)
    if not offers_probes(game):
        return None
    result = play(game, actions_of(record), budget=budget, stop_on_error=True)
    replies = _recorded_replies(record)
    attempt = int(record.get("attempt", 0))
    sha256 = probe_key(task)  # the runner's and the ladder's key (kept from the read)
    curve = []
    for index, (turn, label) in enumerate(schedule(budget, result.steps)):
        state, visited = result.states[turn], result.states[:turn + 1]
        try:
            probes = draw(game, state, visited, sha256, attempt, index, per_milestone)
            right = grade(game, state, probes, replies.get(index, []))
        except Exception as exc:  # a game bug in its probes: none asked, said so
            curve.append({"index": index, "turn": turn, "label": label, "asked": 0,
                          "correct": 0, "kinds": {}, "error": f"{type(exc).__name__}: {exc}"})
            continue
        kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for probe, ok in zip(probes, right, strict=True):
            kinds[probe.kind][0] += 1
            kinds[probe.kind][1] += int(ok)
        curve.append({"index": index, "turn": turn, "label": label, "asked": len(probes),
                      "correct": sum(right), "kinds": dict(sorted(kinds.items()))})
    return curve


def _share(label: str) -> float:
    """A milestone label's share (``25%`` -> 25), to order a curve (others last)."""
    try:
        return float(label.rstrip("%"))
    except ValueError:
        return float("inf")


def _rate(correct: int, asked: int) -> float | None:
    return round(100.0 * correct / asked, 4) if asked else None


def final_accuracy(curve: Sequence[dict[str, Any]]) -> float | None:
    """The accuracy (%) at an attempt's last milestone with probes: what it knew at the end."""
    for m in reversed(curve):
        if m["asked"]:
            return _rate(m["correct"], m["asked"])
    return None


def knowledge_metrics(attempts: Iterable[tuple[bool, Sequence[dict[str, Any]]]]
                      ) -> dict[str, Any] | None:
    """A group's knowledge from (succeeded, curve) per attempt: probes asked and right,
    accuracy per milestone label (``25%`` ... ``100%``) and per kind, the mean
    accuracy at the last milestone, and knows vs succeeds. None when no attempt was probed."""
    by_label: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    finals: dict[bool, list[float]] = {True: [], False: []}
    asked = correct = episodes = 0
    for success, curve in attempts:
        episodes += 1
        for m in curve:
            by_label[m["label"]][0] += m["asked"]
            by_label[m["label"]][1] += m["correct"]
            asked, correct = asked + m["asked"], correct + m["correct"]
            for kind, (n, ok) in m["kinds"].items():
                by_kind[kind][0] += n
                by_kind[kind][1] += ok
        final = final_accuracy(curve)
        if final is not None:
            finals[bool(success)].append(final)
    if not episodes:
        return None

    def mean(values: list[float]) -> float | None:
        return round(sum(values) / len(values), 4) if values else None

    order = sorted(by_label, key=_share)
    return {
        "episodes": episodes, "probes": asked, "correct": correct,
        "accuracy": _rate(correct, asked),
        "curve": {lb: _rate(by_label[lb][1], by_label[lb][0]) for lb in order},
        "kinds": {k: _rate(ok, n) for k, (n, ok) in sorted(by_kind.items())},
        "final_accuracy": mean(finals[True] + finals[False]),
        "knows_vs_succeeds": {
            "succeeded": {"episodes": len(finals[True]), "final_accuracy": mean(finals[True])},
            "failed": {"episodes": len(finals[False]), "final_accuracy": mean(finals[False])}},
    }


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{x:.1f}"


def knowledge_table(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]] | None:
    """The "knows vs succeeds" table of a scored run (headers, rows): per env and overall the
    probes graded, accuracy at each milestone, at the last one, and the last one's accuracy
    for the attempts that succeeded and failed; None when the run asked no probes."""
    groups = [(env, e.get("knowledge")) for env, e in sorted(summary.get("envs", {}).items())]
    groups.append(("overall", (summary.get("overall") or {}).get("knowledge")))
    groups = [(name, k) for name, k in groups if isinstance(k, dict)]
    if not groups:
        return None
    labels: list[str] = []
    for _, know in groups:
        labels += [lb for lb in know.get("curve", {}) if lb not in labels]
    order = sorted(labels, key=_share)
    headers = ["env", "probes", *(f"@{lb}" for lb in order), "final", "succeeded", "failed"]
    rows = []
    for name, know in groups:
        vs = know.get("knows_vs_succeeds", {})
        ok, bad = vs.get("succeeded", {}), vs.get("failed", {})
        rows.append([name, str(know.get("probes", 0)),
                     *(_pct(know.get("curve", {}).get(lb)) for lb in order),
                     _pct(know.get("final_accuracy")),
                     f"{_pct(ok.get('final_accuracy'))} ({ok.get('episodes', 0)})",
                     f"{_pct(bad.get('final_accuracy'))} ({bad.get('episodes', 0)})"])
    return headers, rows


#: What the knowledge table's columns mean (printed under it and shown beside it in reports).
KNOWLEDGE_LEGEND = (
    "Knowledge: world-model probes asked at milestones (% of the budget; one the episode did "
    "not reach is asked at its end) to a copy of the agent that cannot act, graded by score "
    "from the replay. @X %: "
    "probes right at that milestone; final: at each attempt's last milestone, averaged over "
    "attempts; succeeded/failed: the same for the attempts that succeeded and failed (their "
    "number in brackets). All in %. Probe tokens are counted apart from the run's tokens and cost.")
