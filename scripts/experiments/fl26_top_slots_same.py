"""top_slots of this tree and of 6e9f104 (/tmp/wt-6e9f104) on 3,000 random score arrays, ties included: the count that differ."""
import numpy as np, importlib.util, sys
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
new = load('/work/wt-fl23c/src/shitsuji/memory/_slots.py', 'n'); old = load('/tmp/wt-6e9f104/src/shitsuji/memory/_slots.py', 'o')
rng = np.random.default_rng(5); bad = 0
for i in range(3000):
    n = int(rng.integers(1, 3000)); 
    s = rng.integers(0, 20, n).astype(np.float32) if i % 2 else rng.standard_normal(n).astype(np.float64)
    m = np.ones(n, bool) if i % 3 else rng.random(n) < 0.7
    lim = int(rng.integers(1, 100))
    a, b = new.top_slots(s, m, lim), old.top_slots(s, m, lim)
    bad += a != b
print("differ", bad)
