"""Work items run two at a time, results taken in order.

numpy and Arrow release the GIL in their loops, so on this project's 2-core machines a second thread
uses the second core. :func:`ordered_map` keeps at most ``ahead`` items in flight (memory stays
bounded) and yields results in input order, so whatever the caller does with them happens exactly as
in a sequential loop. Users: the chunked engine (batches coded and counted, partitions merged) and the
audit driver (checks whose assessor is ``concurrent``).
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")

WORKERS = min(2, os.cpu_count() or 1)


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
