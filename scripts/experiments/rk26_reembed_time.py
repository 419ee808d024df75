"""How long the background re-embedding of keyed facts from before takes (rk26): N keyed facts and N
without keys in a SQLite file, the keyed ones marked as migration 0027 marks them, then the indexer a
server starts; wall and CPU seconds with the real ``use`` embedder.

    .venv/bin/python scripts/experiments/rk26_reembed_time.py 1000
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from shitsuji.memory import MemoryEngine, NewMemory, USEEmbedder, open_store
from shitsuji.memory._schema import _KEYED_VECTORS_AGAIN


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    scope = "household/h/user/a"
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "m.db"))
        engine = MemoryEngine(store, USEEmbedder())
        rows = [
            NewMemory(
                content=f"Item {i} is kept on shelf {i % 13} in the {('kitchen', 'garage')[i % 2]}",
                scope=scope,
                keys=(f"棚{i % 13}", "収納", "storage") if i % 2 == 0 else (),
            )
            for i in range(2 * n)
        ]
        engine.add_many(rows)
        engine.index_pending()
        store.database.execute(_KEYED_VECTORS_AGAIN)
        pending = engine.pending()
        wall, cpu = time.perf_counter(), time.process_time()
        indexer = engine.index_in_background()
        indexer.join(3600)
        print(
            json.dumps(
                {
                    "keyed": pending,
                    "total": 2 * n,
                    "wall_s": round(time.perf_counter() - wall, 2),
                    "cpu_s": round(time.process_time() - cpu, 2),
                    "left": engine.pending(),
                }
            )
        )
        store.close()


if __name__ == "__main__":
    main()
