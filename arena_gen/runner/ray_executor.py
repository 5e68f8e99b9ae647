"""Ray executor: the same work items on a Ray cluster (``pip install 'arena-gen[ray]'``).

Connects to ``address`` (or ``RAY_ADDRESS``) when given, else starts a local Ray instance with
``jobs`` CPUs. Results are yielded as they complete; callers order them, so output bytes match
the local executor's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..core.errors import ArenaGenError


def init_ray(jobs: int, address: str | None = None) -> Any:
    """Import and initialise Ray once, with a clear error when the extra is missing."""
    try:
        import ray
    except ImportError:
        raise ArenaGenError("--executor ray needs Ray: pip install 'arena-gen[ray]'") from None
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address is None:
            kwargs["num_cpus"] = max(1, jobs)
        ray.init(address=address, **kwargs)
    return ray


def execute_ray(fn: Callable[[Any], Any], items: Sequence[Any], jobs: int,
                address: str | None = None) -> Iterator[Any]:
    """Run ``fn`` over ``items`` as Ray tasks; yield results as they finish."""
    if not items:
        return
    ray = init_ray(jobs, address)
    remote = ray.remote(fn)
    refs = [remote.remote(item) for item in items]
    while refs:
        done, refs = ray.wait(refs, num_returns=1)
        yield ray.get(done[0])


def map_ray(fn: Callable[[Any], Any], items: Sequence[Any], jobs: int,
            address: str | None = None) -> list[Any]:
    """Run ``fn`` over ``items`` as Ray tasks and return results in input order."""
    if not items:
        return []
    ray = init_ray(jobs, address)
    remote = ray.remote(fn)
    return list(ray.get([remote.remote(item) for item in items]))
