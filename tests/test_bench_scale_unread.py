"""``bench scale`` times recall in scopes no query has read beside the same recall again (``time_recalls``):
a scope's first recall pays for pages outside the database's buffers, the next ones do not."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from shitsuji.bench.scale_memory import _RandomEmbedder, time_recalls
from shitsuji.memory import MemoryEngine, NewMemory, open_store


class _Seen(MemoryEngine):
    """The engine, noting the scope of each recall (what a scope's first read is depends on)."""

    scopes: list[str]

    def recall(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        self.scopes.append(str(args[1]))
        return super().recall(*args, **kwargs)  # type: ignore[arg-type]


def test_each_scope_is_timed_once_unread_then_warm(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "m.db"))
    try:
        engine = _Seen(store, _RandomEmbedder(8))  # type: ignore[arg-type]
        engine.scopes = []
        names = [f"bench/s{j}" for j in range(6)]
        engine.add_many([NewMemory(content=f"kaki sushi {j}", scope=name) for j, name in enumerate(names)])
        samples = {name: [f"kaki sushi {j}"] for j, name in enumerate(names)}
        _, times = time_recalls(
            engine, samples, 8, rng=random.Random(0), nrng=np.random.default_rng(0), dim=8
        )
    finally:
        store.close()
    assert len(times["recall_unread"]) == 5 and len(times["recall"]) == 8  # 6 scopes, the first the cold one
    firsts = engine.scopes[0:1] + engine.scopes[1:11:2]  # the first recall, then each query's first of two
    assert sorted(firsts) == sorted(names)  # every scope read once before any is read again
    assert engine.scopes[1:11:2] == engine.scopes[2:12:2]  # each repeated at once: the warm figure
