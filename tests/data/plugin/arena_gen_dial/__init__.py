"""Dial: turn a dial of ``size`` positions to a hidden number, told only warmer or colder.

A complete arena-gen env from outside arena-gen, written by following docs/adding-an-env.md;
``tests/test_plugin.py`` installs it and builds, verifies, runs and scores it.

Versions (a game file is frozen once released; ``_vN`` in a file name is the registry version
that introduced it):

- v1: :mod:`.game_v1`.
"""

from __future__ import annotations

from arena_gen.core.registry import EnvSpec, Parts

part = Parts(__name__)

V1 = EnvSpec(
    name="dial", version=1, code=50, gym_name="Dial", package=__name__,
    game=part("game_v1:DialGame"),
    sampler=part("sampler:sample"),
    presets=part("sampler:PRESETS"),
    verifier=part("verify:verify"),
)

SPECS = (V1,)
