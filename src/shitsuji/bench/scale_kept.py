"""``bench scale --keep DIR``: SQLite's memory part filled once, its recall timed on a copy each run.

Filling 1M memories over 10k scopes takes ~30 minutes on a loaded 2-core machine, while what a change
to recall needs is the recall and the first recall after opening, on the same data for both sides of
a comparison. The first run with ``--keep DIR`` fills ``DIR/memory-N-SCOPES-DIM.db`` as the plain bench
does (its figures include ingest) and records what it holds in ``DIR/memory.json``; a later run with the same
``--n``, ``--scopes`` and vector size copies the file (so the kept fill is never changed by a run:
the online rows, snapshots) and times only recall on the copy — ingest figures are then absent.
Another size fills again. PostgreSQL's memory part is filled each run as before.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from ..memory import MemoryEngine, open_store
from ..store import database
from .scale_memory import (
    Progress,
    _first_recall_after_open,
    _RandomEmbedder,
    recall_figures,
    run_memory_scale,
    time_recalls,
)

FORMAT = 1  # of the fill: the synthetic rows of ``scale_memory`` (a change to them: fill again)


def kept_memory_scale(
    keep: Path, tmp: Path, n: int, scopes: int, *, queries: int, dim: int, progress: Progress | None = None
) -> dict[str, Any]:
    """The memory part over the fill kept in ``keep`` (made here when missing or of another size)."""
    note = progress or (lambda _: None)
    keep.mkdir(parents=True, exist_ok=True)
    # a file per size: a fill of another size never reuses a path this process may still have open
    marker, kept = keep / "memory.json", keep / f"memory-{n}-{scopes}-{dim}.db"
    wanted = {"file": kept.name, "n": n, "scopes": scopes, "dim": dim, "format": FORMAT}
    try:
        held = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        held = None
    if held != wanted or not kept.exists():
        marker.unlink(missing_ok=True)
        for old in keep.glob("memory-*.db*"):
            old.unlink()
        figures = run_memory_scale(str(kept), n, scopes, queries=queries, dim=dim, progress=note)
        database(kept).execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rows into the file a copy takes
        marker.write_text(json.dumps(wanted), encoding="utf-8")
        return {**figures, "kept": str(kept), "filled": True}
    note(f"sqlite: memory, the fill kept in {kept} ({n:,} memories across {scopes:,} scopes), on a copy")
    for suffix in ("", "-wal"):
        if Path(f"{kept}{suffix}").exists():
            shutil.copyfile(f"{kept}{suffix}", tmp / f"memory.db{suffix}")
    return {**recall_on(str(tmp / "memory.db"), scopes, queries=queries, dim=dim), "kept": str(kept)}


def recall_on(target: str, scopes: int, *, queries: int, dim: int, seed: int = 0) -> dict[str, Any]:
    """``run_memory_scale``'s recall figures on a database it filled (``scopes`` scopes of random
    ``dim``-d vectors); the query words come from each scope's first three memories."""
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    samples: dict[str, list[str]] = {}
    rows = database(target).execute(
        "SELECT scope, content FROM memories WHERE deleted_at IS NULL ORDER BY rowid LIMIT ?", (3 * scopes,)
    )
    for scope, content in rows.fetchall():
        samples.setdefault(scope, []).append(content)
    store = open_store(target)
    try:
        engine = MemoryEngine(store, _RandomEmbedder(dim))  # type: ignore[arg-type]
        cold, times = time_recalls(engine, samples, queries, rng=rng, nrng=nrng, dim=dim)
        names = list(samples)
        reopened = _first_recall_after_open(target, _RandomEmbedder(dim), names, nrng, dim)
    finally:
        store.close()
    count = database(target).execute("SELECT count(*) FROM memories").fetchone()[0]
    return {
        "engine": "sqlite",
        "memories": count,
        "scopes": scopes,
        "per_scope": count // max(scopes, 1),
        **recall_figures(cold, reopened, times),
        "queries": queries,
    }
