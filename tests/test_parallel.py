"""The shared executors: ordered and as-finished maps on one process or a local pool."""

from __future__ import annotations

import pytest

from arena_gen.core.errors import ArenaGenError
from arena_gen.core.parallel import map_ordered, map_unordered

ITEMS = [-5, 3, -1, 0, 8, -2, 7]


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_ordered_keeps_input_order(jobs: int) -> None:
    assert list(map_ordered(abs, ITEMS, jobs=jobs)) == [5, 3, 1, 0, 8, 2, 7]


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_unordered_yields_every_result_once(jobs: int) -> None:
    assert sorted(map_unordered(abs, ITEMS, jobs=jobs)) == [0, 1, 2, 3, 5, 7, 8]


def test_empty_and_unknown_executor() -> None:
    assert list(map_ordered(abs, [], jobs=2)) == []
    with pytest.raises(ArenaGenError, match="unknown executor 'dask'"):
        list(map_unordered(abs, ITEMS, executor="dask"))
