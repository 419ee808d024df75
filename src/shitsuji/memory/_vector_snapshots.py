"""Vector snapshots: a database's vectors of one model in one scope in a file beside it, mapped by cold processes.

Reading 10,000 vectors out of SQLite and indexing them row by row costs ~80 ms (a single
20 MB blob still ~45 ms), more than the prompt hook's whole budget; mapping a file costs
~1 ms, and the search reads the pages from the OS cache. A snapshot is a derived cache
like the keyword snapshots: it names the index generation and the last embedding
sequence number it covers, a reader checks both (and the number of live vectors up to
that point) and loads the newer rows from the database on top; anything that does not
match is ignored and rebuilt. Forget, restore, purge and reindex change the generation,
so a snapshot never revives a forgotten row. Deleting the ``<db>.vectors`` folder is
always safe.
"""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ._mapped import read_arrays, write_arrays

log = logging.getLogger(__name__)

MIN_VECTORS = 1000  # smaller databases load from their rows in a few ms
FORMAT = "vectors-v2"  # v2: one file per scope


def snapshot_path(db_path: str, model_id: str, scope: str) -> Path | None:
    """Where the snapshot of ``model_id``'s vectors in ``scope`` lives; None for in-memory databases.

    One file per scope (named by a hash of it: scope names hold member ids), so a process maps
    only the scopes it searches.
    """
    if not db_path or db_path == ":memory:" or db_path.startswith("file:"):
        return None
    db = Path(db_path)
    model = re.sub(r"[^A-Za-z0-9._-]", "_", model_id)
    name = hashlib.sha256(scope.encode()).hexdigest()[:32]
    return db.with_name(db.name + ".vectors") / model / f"{name}.arrays"


def read_snapshot(
    path: Path, *, model_id: str, scope: str, dim: int, generation: int
) -> tuple[int, npt.NDArray[np.float32], dict[str, Any]] | None:
    """(last sequence number covered, matrix, layout) of a current snapshot, or None."""
    try:
        meta, arrays = read_arrays(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("ignoring an unreadable vector snapshot %s: %s", path, exc)
        return None
    wanted = (FORMAT, model_id, scope, generation)
    if (meta.get("format"), meta.get("model"), meta.get("scope"), meta.get("generation")) != wanted:
        return None
    matrix = arrays.get("vectors")
    if matrix is None or matrix.dtype != np.float32 or matrix.ndim != 2 or matrix.shape[1] != dim:
        return None
    return int(meta["last_seq"]), matrix, meta["layout"]


def write_snapshot(
    path: Path,
    *,
    model_id: str,
    scope: str,
    generation: int,
    last_seq: int,
    matrix: npt.NDArray[np.float32],
    layout: dict[str, Any],
) -> None:
    """Store a snapshot; failures (read-only folder, full disk) are logged: it is only a shortcut."""
    meta = {
        "format": FORMAT,
        "model": model_id,
        "scope": scope,
        "generation": generation,
        "last_seq": last_seq,
        "layout": layout,
    }
    try:
        write_arrays(path, meta, {"vectors": np.ascontiguousarray(matrix, dtype=np.float32)})
    except OSError as exc:
        log.info("vector snapshot %s not stored: %s", path, exc)
