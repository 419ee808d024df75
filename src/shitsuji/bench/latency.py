"""Latency and throughput at scale: many synthetic memories in one scope, through the real path.

Recall is timed beside its floor, an exact numpy search over the same vectors (the query
embedded, every vector compared): the ratio says what recall adds to what it cannot avoid.

Memories are generated from templates in Japanese and English (people, foods, places,
dates, amounts) so keyword and vector search see realistic variety. The bulk load goes
through ``add_many`` + ``index_pending`` (what ``shitsuji import`` runs); then single
``remember`` calls and ``recall`` queries (query embedding included) are timed one by one.
"""

from __future__ import annotations

import os
import random
import resource
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..memory import Embedder, MemoryEngine, NewMemory
from ._common import bench_engine, percentile

SCOPE = "bench/latency/user/a"
_PEOPLE = ["Aki", "Ben", "Chika", "Daniel", "Emi", "Farah", "Goro", "Hana", "Ivan", "Junko", "Kenji", "Lena"]
_FOODS = ["green tea", "ramen", "sushi", "curry", "coffee", "natto", "tempura", "pizza", "udon", "mochi"]
_PLACES = ["Okinawa", "Kyoto", "Osaka", "Sapporo", "Berlin", "Lisbon", "Seattle", "Fukuoka", "Nara", "Hakone"]
_HOBBIES = [
    "running",
    "piano",
    "pottery",
    "photography",
    "climbing",
    "chess",
    "gardening",
    "baking",
    "cycling",
]
_JA_FOODS = ["紅茶", "ラーメン", "寿司", "カレー", "コーヒー", "納豆", "天ぷら", "うどん", "餅", "味噌汁"]
_JA_PLACES = ["沖縄", "京都", "大阪", "札幌", "福岡", "奈良", "箱根", "金沢", "仙台", "横浜"]
_JA_HOBBIES = ["ランニング", "ピアノ", "陶芸", "写真", "登山", "将棋", "園芸", "パン作り", "サイクリング"]
_EN = [
    "{p} likes {f} and has it every {d}",
    "{p} went to {pl} in {m} and loved the {f}",
    "{p} started learning {h} last {m}",
    "{p}'s birthday is on {m} {n}",
    "{p} is allergic to {f}",
    "{p} paid {y} yen for {f} at a shop in {pl}",
    "{p} wants to visit {pl} with {q} next {m}",
    "{p} practises {h} with {q} on {d}s",
]
_JA = [
    "{p}は{jf}が好きで、毎週{jd}に食べる",
    "{p}は{m2}月に{jpl}へ旅行した",
    "{p}の誕生日は{m2}月{n}日",
    "{p}は最近{jh}を始めた",
    "{p}は{jf}が苦手",
    "{p}は{jpl}で{jf}に{y}円使った",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_JA_DAYS = ["月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]


def synthetic_memories(n: int, seed: int = 7) -> Iterator[str]:
    """``n`` distinct, plausible one-fact memories, about 1 in 3 in Japanese."""
    rng = random.Random(seed)
    for i in range(n):
        fields = {
            "p": rng.choice(_PEOPLE),
            "q": rng.choice(_PEOPLE),
            "f": rng.choice(_FOODS),
            "pl": rng.choice(_PLACES),
            "h": rng.choice(_HOBBIES),
            "d": rng.choice(_DAYS),
            "m": rng.choice(_MONTHS),
            "n": rng.randint(1, 28),
            "y": rng.randint(2, 500) * 10,
            "jf": rng.choice(_JA_FOODS),
            "jpl": rng.choice(_JA_PLACES),
            "jh": rng.choice(_JA_HOBBIES),
            "jd": rng.choice(_JA_DAYS),
            "m2": rng.randint(1, 12),
        }
        template = rng.choice(_JA) if i % 3 == 0 else rng.choice(_EN)
        yield template.format(**fields) + f" (#{i})"


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    shapes = [
        "what does {p} like to eat",
        "when is {p}'s birthday",
        "who went to {pl}",
        "{p}の好きな食べ物は？",
        "{jpl}に行ったのは誰？",
        "what hobby did {p} start",
        "{jf}が苦手な人",
        "how much did {p} spend on {f}",
    ]
    return [
        rng.choice(shapes).format(
            p=rng.choice(_PEOPLE),
            pl=rng.choice(_PLACES),
            f=rng.choice(_FOODS),
            jpl=rng.choice(_JA_PLACES),
            jf=rng.choice(_JA_FOODS),
        )
        for _ in range(n)
    ]


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def run_latency(
    *,
    embedder: str | Embedder,
    n: int = 100_000,
    queries: int = 500,
    remembers: int = 200,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    with bench_engine(embedder) as engine:
        start, cpu_start = time.perf_counter(), time.process_time()
        engine.add_many(NewMemory(content=text, scope=SCOPE) for text in synthetic_memories(n))
        stored, cpu_stored = time.perf_counter(), time.process_time()
        engine.index_pending(progress=(lambda d, t: progress(f"embedded {d}/{t}")) if progress else None)
        loaded, cpu_loaded = time.perf_counter(), time.process_time()
        engine.recall("warm-up", SCOPE, k=10)  # loads the vector index once, as a server does at start

        remember_ms = []
        for i, text in enumerate(synthetic_memories(remembers, seed=99)):
            t0 = time.perf_counter()
            engine.remember(f"new fact {i}: {text}", SCOPE)
            remember_ms.append((time.perf_counter() - t0) * 1000)

        peak = _peak_rss_mb()  # before the floor's own copy of the vectors
        recall_ms, floor_ms, recall_cpu, floor_cpu = recall_beside_floor(engine, queries)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        return {
            "embedder": engine.embedder.model_id,
            "memories": n,
            "import_per_s": round(n / (loaded - start), 1),
            "insert_rows_per_s": round(n / (stored - start), 1),
            # CPU time (this process, every thread) moves far less with a shared machine's load
            "import_cpu_ms_per_memory": round((cpu_loaded - cpu_start) * 1000 / n, 3),
            "insert_rows_cpu_ms_per_memory": round((cpu_stored - cpu_start) * 1000 / n, 3),
            "remember_p50_ms": round(percentile(remember_ms, 50), 2),
            "remember_p95_ms": round(percentile(remember_ms, 95), 2),
            "recall_p50_ms": round(percentile(recall_ms, 50), 2),
            "recall_p95_ms": round(percentile(recall_ms, 95), 2),
            "exact_floor_p50_ms": round(percentile(floor_ms, 50), 2),
            "exact_floor_p95_ms": round(percentile(floor_ms, 95), 2),
            "recall_over_floor_p95": round(
                percentile(recall_ms, 95) / max(percentile(floor_ms, 95), 1e-9), 2
            ),
            "recall_cpu_p50_ms": round(percentile(recall_cpu, 50), 2),
            "exact_floor_cpu_p50_ms": round(percentile(floor_cpu, 50), 2),
            "recall_over_floor_cpu_p50": round(
                percentile(recall_cpu, 50) / max(percentile(floor_cpu, 50), 1e-9), 2
            ),
            "peak_rss_mb": round(peak, 1),
            "load_average_at_end": round(load, 1) if load is not None else None,
        }


def recall_beside_floor(
    engine: MemoryEngine, queries: int
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Wall ms of ``engine.recall`` and of the exact-search floor, then their CPU ms, query by query:
    recall and the floor in turn, so both meet the same machine load."""
    floor = _exact_floor(engine, k=10)
    recall_ms: list[float] = []
    floor_ms: list[float] = []
    recall_cpu: list[float] = []
    floor_cpu: list[float] = []
    for query in synthetic_queries(queries):
        t0, c0 = time.perf_counter(), time.process_time()
        engine.recall(query, SCOPE, k=10)
        recall_ms.append((time.perf_counter() - t0) * 1000)
        c1 = time.process_time()
        recall_cpu.append((c1 - c0) * 1000)
        floor_ms.append(floor(query))
        floor_cpu.append((time.process_time() - c1) * 1000)
    return recall_ms, floor_ms, recall_cpu, floor_cpu


def _exact_floor(engine: MemoryEngine, k: int) -> Callable[[str], float]:
    """What no recall can beat: the query embedded, then every stored vector compared (numpy), top ``k``.

    Returns a timer of one such search, in ms, over the same vectors the index holds.
    """
    ids = [m.id for m in engine.list_memories(SCOPE)]
    vectors = engine.store.vectors_of(engine.embedder.model_id, ids)
    matrix = np.stack(list(vectors.values())) if vectors else np.zeros((0, 1), dtype=np.float32)

    def search(query: str) -> float:
        t0 = time.perf_counter()
        scores = matrix @ engine.embedder.embed_query(query)
        if len(scores) > k:
            np.argpartition(-scores, k)[:k]
        return (time.perf_counter() - t0) * 1000

    return search
