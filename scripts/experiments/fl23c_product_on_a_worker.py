"""The 100k x 512 product inline or on a worker thread while the caller works 1 ms (wall p50/p95, CPU p50).

    python scripts/experiments/fl23c_product_on_a_worker.py 200
"""
import time, json, os, sys
import numpy as np
from concurrent.futures import ThreadPoolExecutor
m = np.random.rand(100000, 512).astype(np.float32)
pool = ThreadPoolExecutor(1)
def busy(ms):
    t = time.perf_counter()
    while time.perf_counter() - t < ms / 1000: pass
R = {k: [[], []] for k in "ab"}
rng = np.random.default_rng(1)
for i in range(int(sys.argv[1])):
    q = rng.random(512).astype(np.float32)
    for k in "ab":
        t0, c0 = time.perf_counter(), time.process_time()
        if k == "a": s = m @ q; busy(1)
        else: f = pool.submit(np.matmul, m, q); busy(1); s = f.result()
        R[k][0].append((time.perf_counter() - t0) * 1000); R[k][1].append((time.process_time() - c0) * 1000)
print(json.dumps({k: [round(float(np.median(v[0])), 2), round(float(np.percentile(v[0], 95)), 2), round(float(np.median(v[1])), 2)] for k, v in R.items()} | {"load": os.getloadavg()[0]}))
