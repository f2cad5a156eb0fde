"""Batches worked on two at a time, results taken in order.

The chunked engine's per-batch work (Arrow dictionary coding, packed keys, sorts) is numpy and Arrow
code that releases the GIL, so a second thread uses the second core while the first thread reads the
next batch. :func:`ordered_map` keeps at most ``ahead`` batches in flight (memory stays bounded: a few
batches, never the file) and yields results in input order, so whatever the caller does with them
(appending to spill files, assigning first-seen ids) happens exactly as in a sequential loop.
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
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="privaudit-batch") as pool:
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
