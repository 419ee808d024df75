"""unit() against the three forms it replaced, on random float32 vectors and matrices (and zeros)."""
import numpy as np
from shitsuji.memory._embedders import unit
rng = np.random.default_rng(0)
def asked_unit(v):
    norm = float(np.linalg.norm(v)); return v / norm if norm > 0 else v
def inline(v):
    return (v / max(float(np.linalg.norm(v)), 1e-12)).astype(np.float32)
def rows_inline(m):
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
def unit_rows(matrix):
    arr = np.asarray(matrix, dtype=np.float32)
    if arr.ndim == 1: arr = arr[None, :]
    norms = np.linalg.norm(arr, axis=1, keepdims=True); norms[norms == 0] = 1.0
    return np.ascontiguousarray(arr / norms, dtype=np.float32)
bad = 0; n = 0
for _ in range(3000):
    dim = int(rng.choice([8, 256, 384, 512])); scale = float(rng.choice([1e-3, 1.0, 40.0]))
    v = (rng.standard_normal(dim) * scale).astype(np.float32)
    m = (rng.standard_normal((int(rng.integers(1, 6)), dim)) * scale).astype(np.float32)
    for old, new in ((asked_unit(v), unit(v)), (inline(v), unit(v)), (rows_inline(m), unit(m)), (unit_rows(m), unit(m))):
        n += 1; bad += old.dtype != new.dtype or old.tobytes() != new.tobytes()
z, zm = np.zeros(8, np.float32), np.zeros((2, 8), np.float32)
print(f"{n} comparisons, {bad} differ; zeros:", unit(z).tobytes() == asked_unit(z).tobytes() == inline(z).tobytes(), unit(zm).tobytes() == unit_rows(zm).tobytes() == rows_inline(zm).astype(np.float32).tobytes())
