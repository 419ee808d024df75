"""shitsuji (執事): a runtime for LLM agents that act safely and remember.

The names below load on first use, so ``import shitsuji.<module>`` costs only that module:
the prompt hook's client asks a running hook server before it imports numpy at all.
"""

import os

from ._lazy import lazy_exports

# OpenBLAS (numpy's BLAS) keeps its worker threads spinning for 2**28 cycles (~0.1 s) after each
# threaded product, waiting for the next. A recall's 100k-vector scan is one such product a
# question; the spin then burns a second core through the rest of the recall and beyond, and on
# a busy machine takes the share of the CPU the recall's own Python needs (at 100k: recall's CPU
# a third lower without it, p50 / p95 wall -22 / -24 % near rest: docs/benchmarks.md, issue 23
# fl26). 2**4 cycles: a worker sleeps as soon as its work is done and is woken for the next
# product. Read once, when numpy loads OpenBLAS — so set here, before any module of ours imports
# numpy; a value the user set is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

TYPE_CHECKING = False  # not typing's: importing typing costs every hook process ~5 ms of CPU

if TYPE_CHECKING:
    from ._open import open_memory
    from .config import Settings
    from .errors import ShitsujiError
    from .memory import Hit, Memory, MemoryEngine, RememberResult

__version__ = "0.1.0"

_HOMES = {
    "Settings": "config",
    "open_memory": "_open",
    "ShitsujiError": "errors",
    "Hit": "memory",
    "Memory": "memory",
    "MemoryEngine": "memory",
    "RememberResult": "memory",
}


__getattr__ = lazy_exports(__name__, {name: f".{home}" for name, home in _HOMES.items()})


__all__ = [
    "Hit",
    "Memory",
    "MemoryEngine",
    "RememberResult",
    "Settings",
    "ShitsujiError",
    "__version__",
    "open_memory",
]
