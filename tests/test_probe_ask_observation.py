"""Whether ``answer_probes`` takes the episode's observation is read once per function: the
kept answer is the signature's for bound methods (twice, and on other instances), plain
functions and callables, with and without the keyword or ``**kwargs``."""

from __future__ import annotations

import functools
from typing import Any

from arena_gen.core.probe_ask import _accepts_observation, _takes_observation


class Plain:
    def answer_probes(self, probes: list[Any]) -> list[str]:
        return []


class Observing:
    def answer_probes(self, probes: list[Any], observation: str = "") -> list[str]:
        return []


class Open:
    def answer_probes(self, probes: list[Any], **kwargs: Any) -> list[str]:
        return []


class Called:
    def __call__(self, probes: list[Any], observation: str = "") -> list[str]:
        return []


def free(probes: list[Any]) -> list[str]:
    return []


def test_kept_answers_are_the_signatures() -> None:
    methods = [Plain().answer_probes, Observing().answer_probes, Open().answer_probes,
               Plain().answer_probes, Observing().answer_probes, free, Called(),
               functools.partial(free), print]
    for method in methods * 2:
        assert _takes_observation(method) == _accepts_observation(method)
    assert [_takes_observation(m) for m in methods] == [False, True, True, False, True, False,
                                                         True, False, False]
