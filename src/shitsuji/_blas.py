"""OpenBLAS's worker threads told to sleep once a product is done, before numpy loads OpenBLAS.

OpenBLAS (numpy's BLAS) keeps its worker threads spinning for 2**28 cycles (~0.1 s) after each
threaded product, waiting for the next. A recall's 100k-vector scan is one such product a
question; the spin then burns a second core through the rest of the recall and beyond, and on
a busy machine takes the share of the CPU the recall's own Python needs (at 100k: recall's CPU
a third lower without it, p50 / p95 wall -22 / -24 % near rest: docs/benchmarks.md, issue 23
fl26). 2**4 cycles: a worker sleeps as soon as its work is done and is woken for the next
product. OpenBLAS reads it once, when numpy loads it — so it is set when the package is imported,
before any module of ours imports numpy, and a value the user set is kept.

Not configuration of ours (``config.Settings`` is read once at the edge): a setting of a library
this process loads, which every entry point (the CLI, the hook, the bench's app processes, a
program importing ``shitsuji``) needs before that library loads — the one module besides the
settings that touches the environment (``tests/test_service.py``).
"""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
