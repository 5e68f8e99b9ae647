"""What a run spends, and the caps that stop it (``run --max-cost``, ``--max-total-tokens``).

Tokens are the usage the endpoint reports per turn and per probe request (``run --probes``:
each milestone's, recorded apart from the turns but spent all the same; ``core/usage.py`` keeps
only real counts), counted as each turn is played and each milestone asked, so a cap stops a
run within a turn (or a milestone) of being reached. The count
starts from the turns already recorded in the run directory, so a resumed run honours the same
cap over the whole run (raise it to go on). Reaching a cap raises :class:`SpendStop`: the runner
cancels the episodes in flight (they are played again on ``--resume``) and keeps every finished
one; what the cancelled turns spent is kept in ``run.json`` as ``tokens_unrecorded`` and counts
on ``--resume`` too, so resuming with the same cap asks nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.usage import clean_usage


class SpendStop(ArenaGenError):
    """The run reached its ``--max-cost`` or ``--max-total-tokens``: stopped, resumable."""


def usd(prompt: int, completion: int, prices: dict[str, float] | None) -> float | None:
    """What ``prompt`` and ``completion`` tokens cost at USD-per-1M ``prices`` (None: none)."""
    if not prices:
        return None
    return (prompt * prices["input_usd_per_1m"] + completion * prices["output_usd_per_1m"]) / 1e6


@dataclass
class Spend:
    """A run's tokens so far and its caps (None: no cap)."""

    prices: dict[str, float] | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    prompt: int = 0
    completion: int = 0

    def __post_init__(self) -> None:
        if self.max_cost is not None and not self.prices:
            raise ArenaGenError("--max-cost needs --price-in and --price-out (USD per 1M "
                                "prompt and completion tokens) to price the tokens")

    @property
    def capped(self) -> bool:
        """Whether any cap is set (else nothing needs counting)."""
        return self.max_cost is not None or self.max_tokens is not None

    @property
    def cost(self) -> float | None:
        """The tokens so far in USD, when prices are known."""
        return usd(self.prompt, self.completion, self.prices)

    def add(self, usage: dict[str, Any] | None) -> None:
        """Count one turn's reported usage (a usage that is no count counts nothing)."""
        clean, _ = clean_usage(usage)
        self.prompt += (clean or {}).get("prompt_tokens", 0)
        self.completion += (clean or {}).get("completion_tokens", 0)

    def add_milestones(self, milestones: Iterable[Any]) -> None:
        """Count the probe requests of asked milestones (a trajectory's ``probes`` entries)."""
        for milestone in milestones:
            tokens = milestone.get("tokens") if isinstance(milestone, dict) else None
            self.add(tokens if isinstance(tokens, dict) else None)

    def add_records(self, records: Iterable[dict[str, Any]]) -> None:
        """Count the turns and probe requests of finished episodes (a resumed run's recorded
        ones)."""
        for record in records:
            for turn in record.get("turns") or []:
                tokens = turn.get("tokens")
                self.add(tokens if isinstance(tokens, dict) else None)
            self.add_milestones(record.get("probes") or [])

    def reached(self) -> str | None:
        """Why the run must stop now, in words, or None while it is under its caps."""
        total = self.prompt + self.completion
        if self.max_tokens is not None and total >= self.max_tokens:
            return (f"the run's tokens reached --max-total-tokens {self.max_tokens} "
                    f"({total} tokens: {self.prompt} prompt, {self.completion} completion)")
        cost = self.cost
        if self.max_cost is not None and cost is not None and cost >= self.max_cost:
            return (f"the run's cost reached --max-cost {self.max_cost:g} USD ({cost:.4f} USD "
                    f"for {self.prompt} prompt and {self.completion} completion tokens)")
        return None

    def check(self) -> None:
        """Raise :class:`SpendStop` once a cap is reached."""
        why = self.reached()
        if why is not None:
            raise SpendStop(why)
