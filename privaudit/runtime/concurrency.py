"""Work items run side by side, results taken in order.

numpy and Arrow release the GIL in their loops, so each thread can use a core of its own: there are
:data:`WORKERS` of them, the processors this process may run on (``PRIVAUDIT_WORKERS`` overrides it).
:func:`ordered_map` keeps at most ``ahead`` items in flight (memory stays bounded) and yields results in
input order, so whatever the caller does with them happens exactly as
in a sequential loop. Users: the chunked engine (batches coded and counted, partitions merged) and the
audit driver (checks whose assessor is ``concurrent``).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def available_processors() -> int:
    """The processors this process may run on (its CPU affinity where the system has one, else the
    machine's count), or ``PRIVAUDIT_WORKERS`` when it is set to a whole number of at least 1."""
    given = os.environ.get("PRIVAUDIT_WORKERS", "").strip()
    if given.isdigit() and int(given) >= 1:
        return int(given)
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return max(1, os.cpu_count() or 1)


#: threads of :func:`ordered_map` by default
WORKERS = available_processors()


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int = WORKERS, ahead: int = 3) -> Iterator[R]:
    """``map(fn, items)`` on ``workers`` threads, at most ``ahead`` items in flight, results in order.
    An exception raised by ``fn`` surfaces when its result is taken; later items are not started."""
    if workers <= 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="privaudit-worker") as pool:
        pending: deque = deque()
        try:
            for item in items:
                pending.append(pool.submit(fn, item))
                if len(pending) >= ahead:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
