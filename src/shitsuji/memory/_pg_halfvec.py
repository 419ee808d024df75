"""The HNSW graph over half-precision copies of the vectors, so a large scope's graph fits the buffers.

Why: a graph walk reads its index pages one by one, each visit a page lookup in PostgreSQL's
``shared_buffers``. The graph of 50,000 512-d float vectors was 135 MB, above the default 128 MB of
``shared_buffers``: a walk read 2,500–4,000 of its pages from the OS cache and both searches' p95 at
50k in one scope was 40–50 ms, 22–24 ms with the buffers raised to 768 MB (docs/benchmarks.md,
"Issue 25, kw25c"). An HNSW element holds its vector: over ``halfvec`` (pgvector's 2-byte floats) each
takes half the room, and the 50k graph fits the default.

**What is half precision and what is not**: only the walk's order. The index is built over the
expression ``embedding::halfvec(<dim>)`` (``halfvec_cosine_ops``); a search orders by the same
expression (so the planner takes the index) and each row's score is still computed from the stored
float vector (``-(embedding <#> q)``), and the caller ranks by that score. The table, ``embeddings``
and the exact search of small scopes stay float. A 2-byte float keeps 11 significant bits: a cosine
moves by ~1e-4, so the walk may visit two near-tied rows in the other order; both are within the
candidates (asked for twice the rows wanted) and ranked by their exact scores.

**Upgrading** (migration ``0019_hv25_halfvec_graph``, PostgreSQL only): the float graphs are dropped
and the recall function's walk ordered by the expression. A dropped graph is pending
(``_pg_ingest.broken_graphs``): its scopes are searched exactly until the first store that opens the
database builds the halfvec graph in the background (``_pg_graph_builds``), or ``shitsuji reindex
--graph-only`` does. ``broken_graphs`` also counts a graph index not over halfvec as pending (one a
process of the version before built after the upgrade): the planner cannot take it for these
searches.
"""

from __future__ import annotations

from typing import Any, Final

from ._pg_recall import CANDIDATES_FUNCTION

#: The graph's build effort: pgvector's default m (16: fewer links lost recall, 0.26 against 0.47 on
#: random 512-d vectors) with ef_construction 40 instead of 64 — the build 1.38x faster and recall@10
#: unchanged (0.41 against 0.40 over 200 queries at 20,000 random 512-d vectors, ef_search 120; 32 lost
#: 0.02): docs/benchmarks.md, "Issue 25: HNSW ingest, replica doctor". An index built before keeps its
#: own until the next rebuild.
HNSW_WITH = "m = 16, ef_construction = 40"
#: The operator class a graph index must have to serve the searches (``broken_graphs``).
GRAPH_OPCLASS = "halfvec_cosine_ops"


def half(column: str, dim: int) -> str:
    """``column`` (a float vector) as the half-precision vector the graph is built over."""
    return f"({column})::halfvec({int(dim)})"


def hnsw_sql(table: str, dim: int) -> str:
    """The graph's index: HNSW (cosine) over the half-precision vectors of large scopes' rows."""
    return (
        f"CREATE INDEX {table}_hnsw ON {table} USING hnsw (({half('embedding', dim)}) {GRAPH_OPCLASS}) "
        f"WITH ({HNSW_WITH}) WHERE graph"
    )


def graph_sql(table: str, dim: int) -> str:
    """The nearest chunks of large scopes through the HNSW index (``q``: vector, ``s``: scopes, ``n``),
    walked in half precision, each scored exactly."""
    return (
        f"SELECT v.memory_rowid, v.chunk, -(v.embedding <#> %(q)s) FROM {table} v "
        f"WHERE v.graph AND v.scope = ANY(%(s)s) "
        f"ORDER BY {half('v.embedding', dim)} <=> {half('%(q)s', dim)} LIMIT %(n)s"
    )


# the walk of ``memory_recall_candidates`` (0013) and the same walk over the halfvec graph; the query's
# dimension is the table's (the caller passes a table only for a vector of its dimension)
_FLOAT_WALK = "'ORDER BY v.embedding <=> $1 LIMIT $3) v) x', v_table)"
_HALF_WALK = (
    "'ORDER BY (v.embedding)::halfvec(%s) <=> ($1)::halfvec(%s) LIMIT $3) v) x', "
    "v_table, vector_dims(q_vector), vector_dims(q_vector))"
)
assert CANDIDATES_FUNCTION.count(_FLOAT_WALK) == 1

#: Migration ``0019_hv25_halfvec_graph`` (PostgreSQL only): every float graph dropped (pending: built
#: again over halfvec in the background), and the recall function's walk ordered as the new graph.
POSTGRES_HALFVEC_GRAPH: Final = r"""
    DO $$
    DECLARE
        t text;
    BEGIN
        FOR t IN SELECT 'memory_vectors_' || rowid FROM memory_vector_models LOOP
            EXECUTE format('DROP INDEX IF EXISTS %I', t || '_hnsw');
        END LOOP;
    END
    $$;
""" + CANDIDATES_FUNCTION.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1).replace(
    _FLOAT_WALK, _HALF_WALK
)


def graph_room(conn: Any) -> tuple[int, int]:
    """The graph indexes' size and the server's ``shared_buffers``, in bytes (``shitsuji doctor``): a
    walk whose pages do not fit the buffers reads them from the OS cache (the reason for this module)."""
    row = conn.execute(
        "SELECT coalesce(sum(pg_relation_size(to_regclass('memory_vectors_' || rowid || '_hnsw'))), 0), "
        "pg_size_bytes(current_setting('shared_buffers')) FROM memory_vector_models"
    ).fetchone()
    return int(row[0]), int(row[1])
