"""Run one function over many work items: in-process, on a local process pool, or on Ray.

The suite builder, the verifier and the runner all fan work out the same way, so the machinery
lives here, below all of them. Ray is imported only when ``executor="ray"`` is chosen
(``pip install 'arena-gen[ray]'``): it connects to ``address`` (or ``RAY_ADDRESS``) when given,
else starts a local Ray instance with ``jobs`` CPUs. Callers that need deterministic output
either take :func:`map_ordered` or order the results themselves.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from arena_gen.core.errors import ArenaGenError

EXECUTORS = ("local", "ray")
#: Seconds between a pool worker's checks that its parent is still alive.
PARENT_POLL_SECONDS = 0.5


def _exit_with_parent(parent: int, poll: float) -> None:
    """Pool-worker initializer: a daemon thread ends this worker once its parent is gone (a
    SIGKILLed ``run --jobs 2`` must not leave workers behind). Portable: it polls
    ``os.getppid()``, which changes when the parent dies and the worker is re-parented."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def local_pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool whose workers exit when this process dies."""
    return ProcessPoolExecutor(max_workers=jobs, initializer=_exit_with_parent,
                               initargs=(os.getpid(), PARENT_POLL_SECONDS))


def default_jobs() -> int:
    """The cores this process may use (its affinity mask, not the machine's count), so that
    ``--jobs`` fills a container's or a ``taskset``'s share and no more."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if count is not None:
        return max(1, count() or 1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


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


def _check(executor: str) -> None:
    if executor not in EXECUTORS:
        raise ArenaGenError(f"unknown executor {executor!r}; choose local or ray")


def map_ordered(fn: Callable[[Any], Any], items: Sequence[Any], *, jobs: int = 1,
                executor: str = "local", ray_address: str | None = None) -> Iterator[Any]:
    """Yield ``fn(item)`` for every item, in input order, whatever runs them."""
    _check(executor)
    if not items:
        return
    if executor == "ray":
        ray = init_ray(jobs, ray_address)
        remote = ray.remote(fn)
        refs = [remote.remote(item) for item in items]
        for ref in refs:
            yield ray.get(ref)
    elif jobs <= 1 or len(items) <= 1:
        yield from map(fn, items)
    else:
        with local_pool(jobs) as pool:
            yield from pool.map(fn, items)


def map_unordered(fn: Callable[[Any], Any], items: Sequence[Any], *, jobs: int = 1,
                  executor: str = "local", ray_address: str | None = None,
                  on_submit: Callable[[Any], None] | None = None) -> Iterator[Any]:
    """Yield ``fn(item)`` for every item as each finishes, starting items in the given order
    (at most ``2 x jobs`` queued locally), so a caller that lists the longest first keeps every
    worker busy to the end; ``on_submit(item)`` is called as each item is handed out."""
    _check(executor)
    if not items:
        return
    notify = on_submit or (lambda item: None)
    if executor == "ray":
        ray = init_ray(jobs, ray_address)
        remote = ray.remote(fn)
        refs = []
        for item in items:
            notify(item)
            refs.append(remote.remote(item))
        while refs:
            done, refs = ray.wait(refs, num_returns=1)
            yield ray.get(done[0])
        return
    if jobs <= 1 or len(items) <= 1:
        for item in items:
            notify(item)
            yield fn(item)
        return
    pool = local_pool(jobs)
    try:
        queue = list(items)
        queue.reverse()
        running: set[Future[Any]] = set()
        while queue or running:
            while queue and len(running) < 2 * jobs:
                item = queue.pop()
                notify(item)
                running.add(pool.submit(fn, item))
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                yield fut.result()
    finally:
        # An interrupted caller (Ctrl-C, an error, a closed generator) does not wait for the
        # queued items: only the ones already running finish.
        pool.shutdown(wait=True, cancel_futures=True)
