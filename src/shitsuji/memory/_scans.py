"""The process's worker threads for vector scans, so a recall's two searches overlap.

On SQLite a recall searches keywords (Python and small numpy steps, holding the GIL) and
vectors (one matrix product over the scope: at 100,000 memories most of a recall's time, spent
in BLAS without the GIL). Run one after the other they add up; with the scan on a worker the
keyword search fits inside it on a second core (docs/benchmarks.md, issue 23 fl23). A worker
only multiplies arrays it was handed — it reads no database and takes no lock — so a caller
that waits for it, even inside a write transaction, cannot deadlock.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

WORKERS = 2  # scans of concurrent recalls (web workers, the hook server) need not queue behind one

_lock = threading.Lock()
_pool: tuple[int, ThreadPoolExecutor] | None = None


def scans() -> ThreadPoolExecutor:
    """The process's scan workers, made on first use (again in a forked child: threads do not fork)."""
    global _pool
    with _lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (os.getpid(), ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="shitsuji-scan"))
        return _pool[1]
