"""Helpers shared by the benchmarks: a throw-away engine, BM25, percentiles."""

from __future__ import annotations

import json
import math
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..errors import UserInputError
from ..memory import Embedder, MemoryEngine, load_embedder, open_store
from ..memory._engine import Clock, utcnow

T = TypeVar("T")


@contextmanager
def bench_engine(
    embedder: str | Embedder, *, clock: Clock = utcnow, database: str | None = None
) -> Iterator[MemoryEngine]:
    """A ``MemoryEngine`` over a fresh SQLite file that is removed afterwards, or over ``database``
    (an empty PostgreSQL database: ``--postgres`` gives the quality benches a throw-away one)."""
    model = load_embedder(embedder) if isinstance(embedder, str) else embedder
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-") as tmp:
        store = open_store(database or Path(tmp) / "bench.db")
        try:
            yield MemoryEngine(store, model, clock=clock)
        finally:
            store.close()


_BM25_TOKEN = re.compile(r"\w+")


def bm25_tokens(text: str) -> list[str]:
    """Plain baseline tokens: lower-cased word characters, nothing else."""
    return _BM25_TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75) over a fixed list of documents: the baseline we compare with."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tfs = [Counter(d) for d in docs]
        self.lens = np.array([len(d) for d in docs], dtype=np.float64)
        self.avg = float(self.lens.mean()) if len(docs) else 0.0
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def top(self, query: Sequence[str], k: int) -> list[int]:
        scores = np.zeros(len(self.tfs))
        norm = self.k1 * (1 - self.b + self.b * self.lens / (self.avg or 1.0))
        for term in set(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            tf = np.array([d.get(term, 0) for d in self.tfs], dtype=np.float64)
            scores += idf * tf * (self.k1 + 1) / (tf + norm)
        order = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in order if scores[i] > 0]


CONTEXT_TURNS = 2
CONTEXT_CHARS_PER_TURN = 400


def turn_context(previous: Sequence[str]) -> str | None:
    """The last turns before a remembered turn, each cut short: embedding context for it."""
    tail = [text[:CONTEXT_CHARS_PER_TURN] for text in previous[-CONTEXT_TURNS:]]
    return "\n".join(tail) or None


def read_records(path: Path, fmt: str, key: str) -> list[dict[str, Any]]:
    """A JSON file holding a list of objects that each have ``key``; a clear error otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise UserInputError(f"{path} is not a {fmt} file: byte {exc.start} is not UTF-8 text") from None
    except RecursionError:
        raise UserInputError(f"{path} is not a {fmt} file: its JSON is nested too deeply") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise UserInputError(f"cannot read {fmt} file {path}: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(item, dict) and key in item for item in data):
        raise UserInputError(f"{path} is not in {fmt} format (a list of objects with '{key}')")
    return data


def checked_shape(path: Path, fmt: str, build: Callable[[], T]) -> T:
    """``build()``, with a missing field or a value of the wrong type reported as a file of the wrong format."""
    try:
        return build()
    except (KeyError, TypeError, ValueError, AttributeError, SyntaxError, RecursionError) as exc:
        raise UserInputError(f"{path} is not in {fmt} format: {type(exc).__name__} {exc}") from None


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0
