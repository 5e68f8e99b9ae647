"""What every repo game version shares: the facts of a state, the rubric checks, the random
agent's command and the per-package install adjustment.

The games (:mod:`.game_v1`, :mod:`.game_v2`) import these and never each other, so a released
version does not depend on a newer one; their version algebra lives in :mod:`.semver`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core.game import Check, Facts
from arena_gen.core.task import RubricItem

#: The Python versions and scripts of a sampled repo world (v1 and v3 samplers, v1 default).
PYTHONS = ("3.8", "3.9", "3.10", "3.11")
SCRIPTS = ("core/smoke.py", "data/check_io.py", "model/smoke_model.py", "train/run_train.py",
           "eval/run_eval.py")
#: The Python agents select where the index lists none (an empty list offers every Python).
ANY_PYTHON = "3.11"
#: The Python or version index of nothing selected / not installed.
ABSENT = -1


def adjust(kind: str, allowed: frozenset[int], old: int) -> int:
    """The one per-package adjustment rule of installs (dependency fix-ups and side effects)."""
    if kind == "ensure":
        return old if old in allowed else max(allowed)
    if kind in ("force_high", "pin"):
        return max(allowed)
    if kind == "force_low":
        return min(allowed)
    raise ValueError(f"unknown adjustment {kind!r}")


@dataclass(frozen=True)
class RepoFacts(Facts):
    """What judges and logs know of a repo state."""

    python: str | None
    installed: dict[str, str]
    scripts: dict[str, bool]
    run_ok: bool


#: The repo rubric's success item (every version); the others are :func:`item_id` per script.
RUN_OK = "run_ok"


def script_rubric(paths: Sequence[str], run_text: str) -> list[RubricItem]:
    """The repo rubric (every version): ``run_ok`` (``run_text``) and one item per script, in
    the order :func:`script_checks` emits them."""
    return [RubricItem(RUN_OK, run_text)] + [
        RubricItem(item_id(p), f"{p} passes in the final state.") for p in paths]


def script_checks(paths: tuple[str, ...] | list[str], run_ok: bool,
                  scripts: dict[str, bool]) -> list[Check]:
    """The repo rubric's verdicts (every version): ``run_ok`` and one per script."""
    passed = sum(bool(scripts.get(p)) for p in paths)
    out = [Check(RUN_OK, run_ok,
                 f"python run.py {'succeeded' if run_ok else 'did not succeed'}; "
                 f"{passed}/{len(paths)} scripts pass in the final state")]
    for p in paths:
        ok = bool(scripts.get(p))
        out.append(Check(item_id(p), ok, f"{p} {'passes' if ok else 'fails'} at the end"))
    return out


def scripts_met(paths: tuple[str, ...] | list[str], run_ok: bool,
                scripts: dict[str, bool]) -> bool:
    """Whether every :func:`script_checks` verdict is met, without writing their evidence
    (success is read at every text-env step; the messages were a fifth of a repo step)."""
    return run_ok is True and all(scripts.get(p) for p in paths)


def pick(options: list[str], rng: np.random.Generator) -> str:
    """``str(rng.choice(options))``, the same draw (one ``integers`` below the length, as
    ``choice`` draws its index; pinned in a test), without converting the list to an array:
    that conversion was a third of a random repo action."""
    return options[int(rng.integers(len(options)))]


def random_command(public: dict[str, Any], rng: np.random.Generator,
                   read_only: tuple[str, ...]) -> str:
    """The random agent's command for a repo task: mostly installs, some uninstalls, a few
    read-only commands (``read_only``, ``{name}`` filled in) and runs."""
    packages = public["packages"]
    roll = float(rng.random())
    name = pick(sorted(packages), rng)
    if roll < 0.45:
        versions = packages[name]
        return f"pip install {name}=={versions[int(rng.integers(len(versions)))]}"
    if roll < 0.55:
        return f"pip install {name}"
    if roll < 0.65:
        pythons = public["pythons"] or [ANY_PYTHON]
        return f"pip install python=={pythons[int(rng.integers(len(pythons)))]}"
    if roll < 0.72:
        return f"pip uninstall {name}"
    if roll < 0.8:
        return pick([c.format(name=name) for c in read_only], rng)
    if roll < 0.9:
        return f"python {public['scripts'][int(rng.integers(len(public['scripts'])))]}"
    return "python run.py"


def item_id(path: str) -> str:
    """The rubric item of a script: ``data/check_io.py`` -> ``script_check_io_ok``."""
    return f"script_{path.rsplit('/', 1)[-1].removesuffix('.py')}_ok"
