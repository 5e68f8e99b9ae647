"""Turn On Lights sampler: a random relabelled DAG of bulb conditions, stored as a JSON AST."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.seeds import child, component_rngs, rng, task_level_seed
from ..core.task import Certificate, Draft, RubricItem
from ..envs.lights_formula import Formula, to_text

# N weights follow the released OdysseyArena Lite data (levels 6..10: 1, 2, 5, 14, 8 of 30);
# p_not and p_and are the literal shares measured on that data (359/653 negated, 244/417 'and').
PRESETS: dict[str, dict[str, Any]] = {
    "lite": {"count": 30, "n_values": [6, 7, 8, 9, 10], "n_weights": [1, 2, 5, 14, 8],
             "max_literals": 8, "p_not": 0.55, "p_and": 0.6, "min_len": 10, "budget": 200,
             "max_attempts": 500},
    "challenge": {"count": 10, "n_values": list(range(16, 25)), "n_weights": [1] * 9,
                  "max_literals": 8, "p_not": 0.55, "p_and": 0.6, "min_len_over_n": 4,
                  "budget": 1000, "max_attempts": 500},
}

RUBRIC = [RubricItem("all_on", "Every bulb is on at the end of the episode.")]


def make_conditions(n: int, order: list[int], rng: np.random.Generator, *, max_literals: int,
                    p_not: float, p_and: float) -> list[Formula]:
    """Build each bulb's condition over earlier bulbs of ``order``, left-nested and/or chains."""
    conditions: list[Formula] = [{"const": True}] * n
    for pos in range(1, n):
        k = int(rng.integers(1, min(max_literals, pos) + 1))
        chosen = rng.choice(pos, size=k, replace=False)
        node: Formula | None = None
        for idx in chosen:
            lit: Formula = {"var": order[int(idx)]}
            if rng.random() < p_not:
                lit = {"not": lit}
            if node is None:
                node = lit
            else:
                op = "and" if rng.random() < p_and else "or"
                node = {op: [node, lit]}
        assert node is not None
        conditions[order[pos]] = node
    return conditions


def rules_text(conditions: list[Formula]) -> str:
    """The with-rules disclosure: one line per bulb."""
    lines = []
    for i, cond in enumerate(conditions):
        lines.append(f"B{i}: always toggleable" if cond == {"const": True}
                     else f"B{i}: {to_text(cond)}")
    return "\n".join(lines)


def public_view(n: int, budget: int) -> dict[str, Any]:
    """What the agent is told at the start."""
    intro = (f"There are {n} bulbs, B0 to B{n - 1}, all off. Each turn, choose one bulb index to "
             f"toggle. A bulb only toggles when other bulbs are in the right states, under hidden "
             f"rules you must discover. Goal: turn every bulb on within {budget} turns.")
    return {"n": n, "intro": intro, "action_format": "a bulb index, e.g. 3"}


def min_len_for(config: dict[str, Any], n: int) -> int:
    """The acceptance floor on the exact minimum: fixed, or N plus an offset."""
    if "min_len" in config:
        return int(config["min_len"])
    return n + int(config["min_len_over_n"])


def sample(config: dict[str, Any], seq: np.random.SeedSequence) -> Draft:
    """Draw one candidate world from a preset config and one attempt's seed stream.

    N is drawn once per task (task-level stream) and kept across rejected attempts, so the
    suite's N distribution follows the preset weights instead of drifting to large N, where
    the ``min_len`` floor rejects less often.
    """
    rngs = component_rngs(seq, ["order", "conditions"])
    weights = np.asarray(config["n_weights"], dtype=float)
    n = int(rng(child(task_level_seed(seq), 0)).choice(config["n_values"],
                                                       p=weights / weights.sum()))
    order = [int(x) for x in rngs["order"].permutation(n)]
    conditions = make_conditions(n, order, rngs["conditions"],
                                 max_literals=int(config["max_literals"]),
                                 p_not=float(config["p_not"]), p_and=float(config["p_and"]))
    budget = int(config["budget"])
    params = {"n": n, "max_literals": config["max_literals"], "p_not": config["p_not"],
              "p_and": config["p_and"], "min_len": min_len_for(config, n)}
    return Draft(params=params, budget=budget, public=public_view(n, budget),
                 world={"n": n, "order": order, "conditions": conditions},
                 rules_text=rules_text(conditions), rubric=list(RUBRIC))


def accept(draft: Draft, cert: Certificate) -> str | None:
    """Return why a verified candidate is rejected, or None to accept it."""
    if not cert.solvable:
        return "unsolvable"
    if cert.min_steps is None or cert.min_steps < draft.params["min_len"]:
        return f"min_steps {cert.min_steps} < min_len {draft.params['min_len']}"
    if cert.min_steps > draft.budget:
        return f"min_steps {cert.min_steps} exceeds the budget {draft.budget}"
    return None
