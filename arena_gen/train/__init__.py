"""Training environments (issue #27): fresh certified task streams, world overlap, curricula
and certified dense rewards.

:func:`stream` yields tasks certified exactly as a build certifies them, from a seed tree of
their own, never a world of a released suite; :func:`~.overlap.overlap` compares the worlds
of any two suites or stream outputs; :class:`Curriculum` picks each env's difficulty level
(:mod:`~.levels`) from reported outcomes to hold a target success rate; :func:`.shaping.shaped`
(imported from its module, so the stream and overlap commands do not load Gymnasium) turns an
env's exact distance to success into a potential-based dense reward.
"""

from __future__ import annotations

from arena_gen.train.curriculum import Curriculum
from arena_gen.train.stream import Drawn, Stream, stream

__all__ = ["Curriculum", "Drawn", "Stream", "stream"]
