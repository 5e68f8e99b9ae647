"""The hypothesis class of a tiny repo task, as :mod:`arena_gen.core.induction_games` solves it.

A repo world has too many independent draws (API windows, symbols, keywords, scripts) to
enumerate with exact probabilities, so the class is *sampled*: ``draws`` candidates of the
released sampler (v4) under a tiny preset, each verified and accepted as a build would, are
grouped by public view (the package index with its versions, the Pythons, the scripts); the
class of a view is its accepted worlds, each weighted by how often it was drawn (the sampler's
probabilities, estimated). Values solved on it are exact for that class; since a learner that
succeeds on all of H succeeds on any part of it, its W* is a lower bound of the full class's.

The learner's actions are every command the public view names: each Python selection, each
bare and exact install of a listed version, each uninstall, ``pip list``, ``python run.py``
and ``python <script>`` for each script (``repo tree`` only repeats the public view).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena_gen.core import registry
from arena_gen.core.game import WorldView
from arena_gen.core.induction_games import GameClass
from arena_gen.core.seeds import child

#: The released version whose sampler, verifier and game the class uses.
VERSION = 4
#: The smallest worlds the v4 sampler draws: 2 packages (``repo_class`` takes 3 too) of 2
#: versions, at most one declared dependency per version, no consistency or hidden rules (with
#: one version a package has no conflict partner, which the v3 sampler does not handle at n = 2).
SMALL: dict[str, Any] = {"n_min": 2, "n_max": 2, "v_min": 2, "v_max": 2, "deps_min": 0,
                         "deps_max": 1, "n_consistency": 0, "n_hidden": 0, "effects_max": 1,
                         "calls_max": 1, "min_len": 1}


@dataclass(frozen=True)
class RepoClass:
    """The sampled class of one public view: worlds, their draw counts, their minima."""

    public: dict[str, Any]
    worlds: tuple[dict[str, Any], ...]
    counts: tuple[int, ...]
    min_steps: tuple[int, ...]
    #: Accepted draws in all, of ``draws`` candidates (every view).
    accepted: int
    draws: int

    def actions(self) -> list[str]:
        """Every command the public view names (see the module docstring)."""
        out = [f"pip install python=={py}" for py in self.public["pythons"]]
        for name, versions in self.public["packages"].items():
            out.append(f"pip install {name}")
            out += [f"pip install {name}=={v}" for v in versions]
            out.append(f"pip uninstall {name}")
        out += ["pip list", "python run.py"]
        out += [f"python {path}" for path in self.public["scripts"]]
        return out

    def game_class(self) -> GameClass:
        """The class as the game solver takes it, each world played by the v4 game."""
        game = registry.get("repo", VERSION).load("game")
        return GameClass(games=[game(WorldView(world=w)) for w in self.worlds],
                         weights=[float(c) for c in self.counts], actions=self.actions(),
                         told=[float(m) for m in self.min_steps])


def _view_key(public: Mapping[str, Any]) -> str:
    return json.dumps(public, sort_keys=True)


def repo_class(draws: int, seed: int, *, budget: int = 20, view: int = 0,
               packages: int = 2) -> RepoClass:
    """The sampled class of the ``view``-th most drawn public view among ``draws`` candidates
    from ``SeedSequence(seed)``'s children (ties broken by the view's text), worlds of
    ``packages`` packages (the smallest knobs otherwise)."""
    spec = registry.get("repo", VERSION)
    config = dict(spec.load("presets")["lite"].replace(
        budget=budget, **{**SMALL, "n_min": packages, "n_max": packages}))
    sample, verify, accept = spec.load("sampler"), spec.load("verifier"), spec.acceptance()
    root = np.random.SeedSequence(seed)
    by_view: dict[str, Counter[str]] = {}
    minima: dict[str, int] = {}
    publics: dict[str, dict[str, Any]] = {}
    accepted = 0
    for i in range(draws):
        draft = sample(config, child(root, i))
        cert = verify(draft)
        if accept(draft, cert) is not None:
            continue
        accepted += 1
        key, world = _view_key(draft.public), json.dumps(draft.world, sort_keys=True)
        publics[key] = draft.public
        by_view.setdefault(key, Counter())[world] += 1
        minima[world] = int(cert.min_steps)
    if view >= len(by_view):
        raise ValueError(f"{len(by_view)} public views among {accepted} accepted draws of "
                         f"{draws}; view {view} asked")
    key = sorted(by_view, key=lambda k: (-sum(by_view[k].values()), k))[view]
    worlds = sorted(by_view[key])
    return RepoClass(public=publics[key], worlds=tuple(json.loads(w) for w in worlds),
                     counts=tuple(by_view[key][w] for w in worlds),
                     min_steps=tuple(minima[w] for w in worlds), accepted=accepted, draws=draws)
