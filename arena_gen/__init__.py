"""arena-gen: generate, verify, freeze, run and score hidden-rule agent benchmarks.

Importing the package stays cheap (no Gymnasium, numpy or solvers); the Gymnasium ids are
registered when Gymnasium is first imported (see :mod:`arena_gen.gym_registration`).
"""

from arena_gen.gym_registration import register_lazily

__version__ = "0.1.0"

register_lazily()
