"""arena-gen: generate, verify, freeze, run and score hidden-rule agent benchmarks.

Importing the package stays cheap (no Gymnasium, numpy or solvers); the Gymnasium ids are
registered when Gymnasium is first imported (see :mod:`arena_gen.gym_registration`). The Python
API (``load_suite``, ``make_env``, ``run``, ``score``; docs/python-api.md) lives in
:mod:`arena_gen.api` and is imported on first use of one of its names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena_gen.core.version import __version__
from arena_gen.gym_registration import register_lazily

if TYPE_CHECKING:
    from arena_gen.api import load_suite, make_env, run, score

__all__ = ["__version__", "load_suite", "make_env", "run", "score"]
_API = ("load_suite", "make_env", "run", "score")

register_lazily()


def __getattr__(name: str) -> Any:
    """Import :mod:`arena_gen.api` only when one of its names is first used."""
    if name in _API:
        from arena_gen import api

        return getattr(api, name)
    raise AttributeError(f"module 'arena_gen' has no attribute {name!r}")
