"""Recall's candidate rows on PostgreSQL, with each one's first vector from the pages the search just read.

Why: at 1M memories over 10k scopes (``bench scale``) a recall's second statement — the candidates'
rows and their first chunk's vectors — read the vectors from ``embeddings``, whose 2 KB values live
in TOAST: per candidate a heap page, the TOAST index's leaf and one or two TOAST pages, none of
them touched by the search before, so in a large store all read from outside shared buffers (and,
after a bulk load, each evicting a dirty page). The search had just read the same vectors from the
model's ``memory_vectors_<n>`` table (the exact scan of a small scope reads every row; a graph walk
the rows it returns), so ``chunk = 0`` there is in shared buffers: measured on a 1M fill, the
statement's buffer reads fell from ~140 to ~50 per recall (``docs/benchmarks.md``, issue 25, tl25).

The vector comes as pgvector's binary form (``vector_send``: a 2-byte dimension, 2 unused bytes, then
big-endian float4s), the same float32 values ``embeddings`` holds. A live memory whose derived row is
not there yet (rows copied in by another process that has not derived them: the derived-row rule in
``_postgres_store``) reads ``embeddings`` instead, so the answer is the same as before in every case.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ._rows import COLUMNS

_SELECT: Final = ", ".join("m." + c for c in COLUMNS)

#: (model, ids) — the rows and the first chunk (native float32) of the live ones, from ``embeddings``:
#: for a model without a vector table yet (nothing derived, or no model at all: nothing matches).
ROWS_WITH_VECTORS_SQL: Final = (
    f"SELECT {_SELECT}, substring(e.vectors FROM 1 FOR 4 * e.dim::integer), NULL::bytea "
    "FROM memories m LEFT JOIN embeddings e ON e.memory_rowid = m.rowid AND e.model = ? AND m.deleted_at IS NULL "
    "WHERE m.id = ANY(?)"
)


def rows_from_table_sql(table: str) -> str:
    """(model, ids) — as ``ROWS_WITH_VECTORS_SQL``, the first chunk read from ``table`` (the model's
    ``memory_vectors_<n>``: a name of our own numbering, never a user's text), ``embeddings`` only
    for a live memory without its derived row."""
    return (
        f"SELECT {_SELECT}, "
        "CASE WHEN v.memory_rowid IS NULL AND m.deleted_at IS NULL THEN (SELECT substring(e.vectors FROM 1 "
        "FOR 4 * e.dim::integer) FROM embeddings e WHERE e.memory_rowid = m.rowid AND e.model = ?) END, "
        "vector_send(v.embedding) "
        f"FROM memories m LEFT JOIN {table} v ON v.memory_rowid = m.rowid AND v.chunk = 0 AND m.deleted_at IS NULL "
        "WHERE m.id = ANY(?)"
    )


def first_vector(row: Any) -> npt.NDArray[np.float32] | None:
    """The first chunk's vector of a row of either statement (its last two columns), else None."""
    native, sent = row[-2], row[-1]
    if sent is not None:  # vector_send: dim (int16), unused (int16), big-endian float4s
        return np.frombuffer(sent, dtype=">f4", offset=4).astype(np.float32)
    if native is not None:
        return np.frombuffer(native, dtype=np.float32)
    return None
