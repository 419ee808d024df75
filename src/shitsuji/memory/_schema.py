"""The memory package's tables: memories, their embeddings, extraction jobs, keyword snapshots.

On PostgreSQL, ``0011_postgres_recall`` adds what recall in the database needs (SQLite
keeps its in-process indexes and has nothing to do): ``memories.keywords``, a generated
``tsvector`` of the stored terms plus one ``' scope <scope>'`` lexeme (so a GIN index
answers "these words in these scopes" alone), generated per-row chunk and term counts for
BM25's averages, a sequence for ``embeddings.seq`` (writers no longer queue on one file),
and the bookkeeping of the derived pgvector tables ``memory_vectors_<n>`` (one per
embedding model, made when the model's first vectors arrive; see ``_postgres_store``).
``0012_pgsearch_keyword_postings`` replaces ``keywords`` and its GIN index with postings and
term statistics kept by triggers and scored in SQL (``_pg_keywords``);
``0014_tp25_scope_totals_slots`` spreads each scope's totals over a few rows, so that writers of
one scope no longer queue on one (``_pg_scope_totals``). ``0015_ja23b_terms_readings`` marks the
rows whose terms were made before Japanese readings were indexed (``_readings``): until
``shitsuji reindex`` they are found by their written forms only, and recall says so
(``_model_check.readings_missing``). ``0016_in25b_sorted_postings`` writes a batch's postings in
their key's order (``_pg_postings_order``). ``0017_kw25c_bm25_top`` ranks the keyword top-k from
the best few hundred chunks instead of sorting every chunk scored (``_pg_bm25_top``).
``0018_ky23_search_keys`` keeps the search keys a model
gave with a fact (``Memory.keys``: synonyms, the category, a translation — indexed with its terms,
never shown as its text) and who gave them. ``0019_hv25_halfvec_graph`` builds the HNSW graphs over
the vectors in half precision, so that a 50,000-memory scope's graph fits the default ``shared_buffers``
(``_pg_halfvec``): the float graphs are dropped and built again in the background.
``0020_kt25_term_deltas`` keeps a term's count per
scope as signed rows added by each write, summed by the search (a bulk load inserts them plainly,
no conflict check or lock a row: ``_pg_term_deltas``). ``0021_bk25_postings_window`` splits a
batch's postings in one grouping pass (``_pg_postings_of``). ``0022_cs25_inline_vectors`` keeps each vector
in its row of the vector tables rather than in TOAST (one page read per vector, not three); the rows
stored before are rewritten in the background (``_pg_inline``). ``0023_fold_lock_order`` takes a small
write's fold's row locks in a total order (``_pg_term_deltas``: two writes of the same words deadlocked).
``0024_gp26_function_plans`` keeps our PL/pgSQL functions' plans as they were under the app sessions'
generic plans (``_pg_function_plans``). ``0025_cl26_scope_gather`` keeps the mark of the background
upkeep that moves a scattered scope's vector rows onto adjacent pages (``_pg_gather``).
``0026_sc26_term_fold_due`` notes the scopes that large statements wrote, whose term-count rows the
background upkeep folds (``_pg_term_upkeep``: many separate small imports into one scope).
``0027_rk26_keyed_vectors_again`` marks the facts stored with search keys before the keys moved a fact's
vector, so that they are embedded again without a reindex (``_KEYED_VECTORS_AGAIN``).
``0028_dt29_about_spans`` keeps the dates a fact's text is about, found when it is written (``_about``);
rows from before hold NULL until ``reindex`` (recall reads their text meanwhile).
``0029_ad30_about_walked`` keeps the last rowid whose dates the upkeep stored, and by which reading rules:
a start with nothing written since reads no row (``_about``).
"""

from __future__ import annotations

from ..store import Migration, Schema
from ._pg_bm25_top import POSTGRES_BM25_TOP
from ._pg_function_plans import POSTGRES_FUNCTION_PLANS
from ._pg_gather import POSTGRES_SCOPE_GATHER
from ._pg_halfvec import POSTGRES_HALFVEC_GRAPH
from ._pg_inline import POSTGRES_INLINE_VECTORS
from ._pg_keywords import POSTGRES_POSTINGS
from ._pg_postings_of import POSTGRES_POSTINGS_WINDOW
from ._pg_postings_order import POSTGRES_SORTED_POSTINGS
from ._pg_recall import POSTGRES_RECALL_ONE_TRIP
from ._pg_scope_totals import POSTGRES_SCOPE_SLOTS
from ._pg_term_deltas import POSTGRES_FOLD_LOCK_ORDER, POSTGRES_TERM_DELTAS
from ._pg_term_upkeep import POSTGRES_TERM_FOLD_DUE

# a lexeme is a whole stored term (split on white space), never re-parsed: what the engine made is
# what is matched, in any language; the scope lexeme starts with a space, which no term holds
_TERM_ARRAY = r"array_remove(regexp_split_to_array(terms, '\s+'), '')"
_POSTGRES_RECALL = f"""
    CREATE EXTENSION IF NOT EXISTS vector;
    ALTER TABLE memories ADD COLUMN keywords tsvector
        GENERATED ALWAYS AS (array_to_tsvector(array_append({_TERM_ARRAY}, ' scope ' || scope))) STORED;
    ALTER TABLE memories ADD COLUMN chunk_count INTEGER
        GENERATED ALWAYS AS (1 + length(terms) - length(replace(terms, chr(10), ''))) STORED;
    ALTER TABLE memories ADD COLUMN term_count INTEGER GENERATED ALWAYS AS (cardinality({_TERM_ARRAY})) STORED;
    CREATE INDEX memories_keywords ON memories USING gin (keywords) WHERE deleted_at IS NULL;
    CREATE INDEX memories_live_scope ON memories (scope) INCLUDE (chunk_count, term_count)
        WHERE deleted_at IS NULL;
    CREATE INDEX memories_id_prefix ON memories (id text_pattern_ops);
    CREATE SEQUENCE embeddings_seq_gen;
    CREATE TABLE memory_vector_models (rowid INTEGER PRIMARY KEY, model TEXT NOT NULL UNIQUE, dim INTEGER NOT NULL);
    CREATE TABLE memory_vector_state (rowid INTEGER PRIMARY KEY CHECK (rowid = 1), derived_seq INTEGER NOT NULL);
    INSERT INTO memory_vector_state (rowid, derived_seq) VALUES (1, 0);
    CREATE TABLE memory_graph_scopes (model TEXT NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (model, scope))
"""

# Rows from before readings existed hold Japanese words whose readings were never indexed: their
# ``readings`` is NULL. A partial index of their ``deleted_at`` and ``readings`` covers the count of the
# live ones: 1.2 ms for 33k marked rows of 100k, a seek once a reindex has marked them all (indexed on
# ``rowid`` the count read every marked row: 231 ms; docs/benchmarks.md, ja23b).
# Rows without kanji or hiragana (English, katakana alone) have no readings to add. New rows take the
# default, and ``rewrite_terms`` (reindex) sets it: both make their terms with readings.
_JAPANESE_GLOB = "'*[ぁ-ゖ㐀-鿿豈-﫿]*'"
_JAPANESE_REGEX = "'[ぁ-ゖ㐀-鿿豈-﫿]'"
_TERMS_READINGS = """
    ALTER TABLE memories ADD COLUMN readings INTEGER DEFAULT 1;
    UPDATE memories SET readings = NULL WHERE content {match} OR coalesce(context, '') {match};
    CREATE INDEX memories_without_readings ON memories (deleted_at, readings) WHERE readings IS NULL
"""

# Facts stored with search keys before their keys shaped their vector (kv26: ``embed_rows``) hold the
# vector of their words alone. Marked as not embedded, they are what ``index_pending`` embeds next (the
# writer that finds them, ``serve`` at its start, import, reindex): their old vector serves recall until
# then (``embeddings`` and PostgreSQL's derived tables keep it; ``put_vectors`` replaces both at once).
_KEYED_VECTORS_AGAIN = "UPDATE memories SET embedding_model = NULL WHERE search_keys IS NOT NULL"

MEMORY_SCHEMA = Schema(
    "memory",
    (
        Migration(
            "0001_memories",
            """
            CREATE TABLE memories (
                rowid INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                scope TEXT NOT NULL,
                content TEXT NOT NULL,
                category TEXT NOT NULL,
                importance REAL NOT NULL CHECK (importance BETWEEN 0 AND 1),
                source TEXT NOT NULL,
                provenance TEXT NOT NULL DEFAULT '{}',
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                valid_until TEXT,
                deleted_at TEXT,
                content_hash TEXT NOT NULL,
                embedding_model TEXT,
                terms TEXT NOT NULL DEFAULT '',
                context TEXT
            );
            CREATE INDEX memories_scope ON memories (scope, deleted_at);
            CREATE INDEX memories_hash ON memories (content_hash, scope);
            CREATE INDEX memories_unindexed ON memories (embedding_model);
            CREATE TABLE embeddings (
                memory_rowid INTEGER PRIMARY KEY REFERENCES memories (rowid) ON DELETE CASCADE,
                model TEXT NOT NULL,
                dim INTEGER NOT NULL,
                chunks INTEGER NOT NULL,
                vectors BLOB NOT NULL,
                seq INTEGER NOT NULL
            );
            CREATE INDEX embeddings_seq ON embeddings (seq);
            CREATE TABLE index_state (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
            INSERT INTO index_state (id, generation) VALUES (1, 0);
            """,
        ),
        Migration(
            "0005_extraction_jobs",
            """
            CREATE TABLE jobs (
                id TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                payload TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at TEXT NOT NULL,
                last_error TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            CREATE INDEX jobs_due ON jobs (status, next_attempt_at);
            """,
        ),
        Migration(
            "0010_keyword_snapshots",
            """
            CREATE TABLE keyword_snapshots (
                scope TEXT PRIMARY KEY,
                generation INTEGER NOT NULL,
                last_rowid INTEGER NOT NULL,
                format TEXT NOT NULL,
                data BLOB NOT NULL
            );
            """,
        ),
        Migration("0011_postgres_recall", "", postgres=_POSTGRES_RECALL),
        Migration("0012_pgsearch_keyword_postings", "", postgres=POSTGRES_POSTINGS),
        Migration("0013_kw25_recall_one_trip", "", postgres=POSTGRES_RECALL_ONE_TRIP),
        Migration("0014_tp25_scope_totals_slots", "", postgres=POSTGRES_SCOPE_SLOTS),
        Migration(
            "0015_ja23b_terms_readings",
            _TERMS_READINGS.format(match=f"GLOB {_JAPANESE_GLOB}"),
            postgres=_TERMS_READINGS.format(match=f"~ {_JAPANESE_REGEX}"),
        ),
        Migration("0016_in25b_sorted_postings", "", postgres=POSTGRES_SORTED_POSTINGS),
        Migration("0017_kw25c_bm25_top", "", postgres=POSTGRES_BM25_TOP),
        Migration(
            "0018_ky23_search_keys",
            """
            ALTER TABLE memories ADD COLUMN search_keys TEXT;
            ALTER TABLE memories ADD COLUMN search_keys_by TEXT
            """,
        ),
        Migration("0019_hv25_halfvec_graph", "", postgres=POSTGRES_HALFVEC_GRAPH),
        Migration("0020_kt25_term_deltas", "", postgres=POSTGRES_TERM_DELTAS),
        Migration("0021_bk25_postings_window", "", postgres=POSTGRES_POSTINGS_WINDOW),
        Migration("0022_cs25_inline_vectors", "", postgres=POSTGRES_INLINE_VECTORS),
        Migration("0023_fold_lock_order", "", postgres=POSTGRES_FOLD_LOCK_ORDER),
        Migration("0024_gp26_function_plans", "", postgres=POSTGRES_FUNCTION_PLANS),
        Migration("0025_cl26_scope_gather", "", postgres=POSTGRES_SCOPE_GATHER),
        Migration("0026_sc26_term_fold_due", "", postgres=POSTGRES_TERM_FOLD_DUE),
        Migration("0027_rk26_keyed_vectors_again", _KEYED_VECTORS_AGAIN),
        Migration("0028_dt29_about_spans", "ALTER TABLE memories ADD COLUMN about TEXT"),
        Migration(
            "0029_ad30_about_walked",
            "CREATE TABLE about_walked "
            "(rowid INTEGER PRIMARY KEY CHECK (rowid = 1), rules INTEGER NOT NULL, seen_rowid INTEGER NOT NULL)",
        ),
    ),
)
