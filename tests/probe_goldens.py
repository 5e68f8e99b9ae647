"""What the probe-golden tests share: the released tasks they read and the hash of the questions
and answers a game draws along a task's witness (one walk, so every env's goldens mean the same)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena_gen.core.canon import canonical_json
from arena_gen.core.game import WorldView
from arena_gen.core.probes import draw

ROOT = Path(__file__).resolve().parents[1]


def released_tasks(env: str, counts: Sequence[tuple[str, int]]) -> list[dict[str, Any]]:
    """The first ``n`` tasks of ``env`` in each released folder ``suites/<suite>`` named."""
    out = []
    for suite, n in counts:
        lines = (ROOT / "suites" / suite / f"{env}.jsonl").read_text().splitlines()
        out += [json.loads(line) for line in lines[:n]]
    return out


def drawn_hash(cls: Any, task: dict[str, Any], along_witness: bool = True) -> str:
    """sha256 of the canonical JSON of the questions and answers ``cls`` draws on ``task``: at
    the start, the middle and the end of its witness (only the start without ``along_witness``),
    attempts 0 and 1, on one game (what it keeps carries over from draw to draw, as in a run),
    each visited state kept."""
    game = cls(WorldView(task["world"], task["public"], task["budget"]))
    witness = task["certificate"]["witness"] if along_witness else []
    at = {0, len(witness) // 2, len(witness)}
    state = game.initial()
    visited = [state]
    out = []
    for step, action in enumerate([None, *witness]):
        if action is not None:
            state = game.act(state, action)[0]
            visited.append(state)
        if step in at:
            for attempt in (0, 1):
                probes = draw(game, state, visited, task["sha256"], attempt, step)
                out.append([{**p.to_dict(), "answer": game.probe_answer(state, p)}
                            for p in probes])
    return hashlib.sha256(canonical_json(out).encode()).hexdigest()
