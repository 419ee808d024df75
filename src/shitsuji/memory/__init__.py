"""Long-term memory: one fact per row, scoped, found by meaning and by words."""

from ._embedders import (
    DEFAULT_EMBEDDER,
    E5Embedder,
    Embedder,
    HashEmbedder,
    USEEmbedder,
    embedder_names,
    load_embedder,
)
from ._engine import BackgroundIndexer, MemoryEngine, NewMemory
from ._recall import RecallWeights
from ._records import CATEGORIES, SOURCES, Hit, Memory, RememberResult
from ._scopes import distance, lineage, normalize_scope
from ._sqlite_store import SQLiteMemoryStore
from ._store import MemoryStore, StoreStats
from ._text import content_hash, normalize, terms
from ._transfer import ImportReport, export_lines, import_file, parse_lines

__all__ = [
    "CATEGORIES",
    "DEFAULT_EMBEDDER",
    "SOURCES",
    "BackgroundIndexer",
    "E5Embedder",
    "Embedder",
    "HashEmbedder",
    "Hit",
    "ImportReport",
    "Memory",
    "MemoryEngine",
    "MemoryStore",
    "NewMemory",
    "RecallWeights",
    "RememberResult",
    "SQLiteMemoryStore",
    "StoreStats",
    "USEEmbedder",
    "content_hash",
    "distance",
    "embedder_names",
    "export_lines",
    "import_file",
    "lineage",
    "load_embedder",
    "normalize",
    "normalize_scope",
    "parse_lines",
    "terms",
]
