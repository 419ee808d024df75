"""OpenBLAS's worker threads sleep once a product is done (issue 23 fl26).

OpenBLAS keeps its workers spinning ~0.1 s after each threaded product; a recall's vector scan
is one such product, and the spin burned a core through the rest of the recall (docs/benchmarks.md,
issue 23 fl26). Importing shitsuji sets ``OPENBLAS_THREAD_TIMEOUT`` before numpy loads OpenBLAS.
Each case runs in a fresh interpreter: the setting is read once, when the library loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: CPU the process spends while its main thread sleeps after a threaded product, median of a few
SPIN_PROBE = """
import json, statistics, sys, time
import shitsuji
import numpy as np
from threadpoolctl import threadpool_info

threads = max((i["num_threads"] for i in threadpool_info() if i["internal_api"] == "openblas"), default=0)
matrix = np.random.default_rng(1).standard_normal((20_000, 512), dtype=np.float32)
query = np.ones(512, dtype=np.float32)
spins = []
for _ in range(7):
    matrix @ query  # a threaded sgemv, as a recall's scan
    c0 = time.process_time()
    time.sleep(0.05)  # the main thread does nothing: what the process spends here is the workers'
    spins.append((time.process_time() - c0) * 1000)
print(json.dumps({"threads": threads, "spin_ms": statistics.median(spins)}))
"""


def _python(code: str, **env: str) -> str:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "OPENBLAS_NUM_THREADS")
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip()


def test_importing_shitsuji_sets_the_spin_before_numpy_loads() -> None:
    out = _python(
        "import os, sys, shitsuji; print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), 'numpy' in sys.modules)"
    )
    assert out == "4 False"


def test_a_spin_the_user_set_is_kept() -> None:
    out = _python(
        "import os, shitsuji; print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'))", OPENBLAS_THREAD_TIMEOUT="20"
    )
    assert out == "20"


def test_blas_workers_do_not_spin_after_a_product() -> None:
    found = json.loads(_python(SPIN_PROBE))
    if found["threads"] < 2:
        pytest.skip("OpenBLAS runs one thread here: nothing spins")
    # spinning, the second thread burns most of the 50 ms sleep (more than a few ms even on a
    # loaded machine); asleep, the process spends ~0.05 ms
    assert found["spin_ms"] < 1.0, found
