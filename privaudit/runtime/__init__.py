"""Runtime machinery, apart from the domain model in ``core/``: plugin code run guarded (``guard.py``:
failures, time limits, stdout, interrupts), outputs written atomically (``atomic.py``), memory refusals
(``memory.py``), progress lines (``progress.py``) and the thread pool (``concurrency.py``)."""
