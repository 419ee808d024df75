"""Issue 23 (kv26): what keys-as-meaning costs a write, A/B in one process: the shipped ``embed_rows``
(keys embedded as one more text) against the same code with ``fact_texts`` giving no keys text (the
vectors of the code before; keys still indexed as words, as before). ``remember`` calls alternate A/B one
by one (per-call process CPU and wall); imports (``add_many`` + ``index_pending``) alternate A/B per round.
Every fact has keys (a worst case). ``use`` on a fresh SQLite file. (docs/benchmarks.md, kv26)

    .venv/bin/python scripts/experiments/kv26_keys_cost.py 300 2000 3
"""

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from shitsuji.bench._common import bench_engine
from shitsuji.bench.latency import synthetic_memories
from shitsuji.memory import NewMemory, _embedding

WORDS = (
    "coriander cilantro 香草 苦手な食べ物 通勤 commute bicycle 自転車 誕生日 birthday 記念日 allergy アレルギー "
    "エビ shellfish 食べられないもの 仕事 job 勤務先 hometown 出身地 故郷 hobby 趣味 pet ペット 散歩 dog 犬 "
    "family 家族 travel 旅行 doctor 病院 medicine 薬 school 学校 money 家計 present プレゼント"
).split()
RNG = random.Random(3)
KEYS = [RNG.sample(WORDS, RNG.randint(3, 6)) for _ in range(997)]  # a distinct set of keys per fact
SHIPPED = _embedding.fact_texts


def words_only(content: str, keys: Any) -> tuple[list[str], str | None]:
    return SHIPPED(content, ())


def mode(keyed: bool) -> None:
    _embedding.fact_texts = SHIPPED if keyed else words_only  # type: ignore[assignment]


def timed(run: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


n_remember, n_import, rounds = (int(a) for a in sys.argv[1:4])
facts = list(synthetic_memories(n_remember + n_import * rounds * 2, seed=5))
per_call: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
imports: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
with bench_engine("use") as engine:
    engine.embedder.embed_documents(["warm-up"])
    for i, text in enumerate(facts[:n_remember]):
        keyed = i % 2 == 0
        mode(keyed)
        per_call[keyed].append(
            timed(lambda: engine.remember(text, f"bench/r{i % 2}", keys=KEYS[i % len(KEYS)]))
        )
    rest = iter(facts[n_remember:])
    mode(True)
    engine.add_many(NewMemory(content=t, scope="bench/warm") for t in synthetic_memories(n_import, seed=9))
    engine.index_pending()  # the tokenizer's and the model's caches warm, as in a long-running process
    for r in range(rounds):
        for keyed in (r % 2 == 0, r % 2 == 1):
            mode(keyed)
            items = [
                NewMemory(
                    content=next(rest), scope=f"bench/i{r}", keys=tuple(KEYS[(r * n_import + j) % len(KEYS)])
                )
                for j in range(n_import)
            ]
            add = timed(lambda: engine.add_many(items))
            index = timed(engine.index_pending)
            imports[keyed].append((add[0] + index[0], add[1] + index[1]))


def ms(rows: list[tuple[float, float]], column: int, q: float) -> float:
    values = sorted(r[column] for r in rows)
    return round(1000 * values[min(int(q * len(values)), len(values) - 1)], 2)


out = {
    f"{name}": {
        "remember_cpu_ms_p50": ms(per_call[keyed], 0, 0.5),
        "remember_wall_ms_p50_p95": (ms(per_call[keyed], 1, 0.5), ms(per_call[keyed], 1, 0.95)),
        "import_cpu_s": [round(c, 2) for c, _ in imports[keyed]],
        "import_cpu_s_median": round(statistics.median(c for c, _ in imports[keyed]), 2),
        "import_rows_per_cpu_s": round(n_import / statistics.median(c for c, _ in imports[keyed])),
    }
    for name, keyed in (("keys_as_meaning", True), ("words_only", False))
}
print(json.dumps({**out, "load": open("/proc/loadavg").read().split()[:3]}), flush=True)
