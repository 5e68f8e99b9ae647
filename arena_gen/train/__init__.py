"""Training environments (issue #27): fresh certified task streams and world overlap.

:func:`stream` yields tasks certified exactly as a build certifies them, from a seed tree of
their own, never a world of a released suite; :func:`~.overlap.overlap` compares the worlds
of any two suites or stream outputs.
"""

from __future__ import annotations

from arena_gen.train.stream import Drawn, Stream, stream

__all__ = ["Drawn", "Stream", "stream"]
