"""Long-term memory: one fact per row, scoped, found by meaning and by words.

Every name loads on first use (PEP 562): the command line and the prompt hook import this
package without numpy, the embedders or pydantic until a command needs them.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = [
    "CATEGORIES",
    "DEFAULT_EMBEDDER",
    "EXTRACTION_PROMPT",
    "KEYS_DESCRIPTION",
    "MAX_KEYS",
    "MAX_KEY_CHARS",
    "MEMORY_SCHEMA",
    "SOURCES",
    "BackgroundIndexer",
    "DeferredEmbedder",
    "E5Embedder",
    "Embedder",
    "ExtractionQueue",
    "ExtractionReport",
    "ExtractionSettings",
    "Extractor",
    "HashEmbedder",
    "Hit",
    "ImportReport",
    "JobOutcome",
    "Memory",
    "MemoryEngine",
    "MemoryStore",
    "NewMemory",
    "RecallWeights",
    "RememberResult",
    "SQLiteMemoryStore",
    "StoreStats",
    "Turn",
    "USEEmbedder",
    "content_hash",
    "distance",
    "embedder_names",
    "export_lines",
    "import_file",
    "import_items",
    "lineage",
    "load_embedder",
    "memory_store",
    "normalize",
    "normalize_scope",
    "open_engine",
    "open_store",
    "parse_lines",
    "sources_ranked",
    "terms",
]

if TYPE_CHECKING:
    from ._deferred import DEFAULT_EMBEDDER, DeferredEmbedder
    from ._embedders import (
        E5Embedder,
        Embedder,
        HashEmbedder,
        USEEmbedder,
        embedder_names,
        load_embedder,
    )
    from ._engine import BackgroundIndexer, MemoryEngine, NewMemory
    from ._extract import EXTRACTION_PROMPT, ExtractionReport, Extractor, Turn
    from ._jobs import ExtractionQueue, ExtractionSettings, JobOutcome
    from ._open import memory_store, open_store
    from ._open_engine import open_engine
    from ._recall import RecallWeights
    from ._records import (
        CATEGORIES,
        KEYS_DESCRIPTION,
        MAX_KEY_CHARS,
        MAX_KEYS,
        SOURCES,
        Hit,
        Memory,
        RememberResult,
    )
    from ._schema import MEMORY_SCHEMA
    from ._scopes import distance, lineage, normalize_scope
    from ._sources import sources_ranked
    from ._sqlite_store import SQLiteMemoryStore
    from ._store import MemoryStore, StoreStats
    from ._text import content_hash, normalize, terms
    from ._transfer import ImportReport, export_lines, import_file, import_items, parse_lines

__getattr__ = lazy_exports(
    __name__,
    {
        "DEFAULT_EMBEDDER": "._deferred",
        "DeferredEmbedder": "._deferred",
        "E5Embedder": "._embedders",
        "Embedder": "._embedders",
        "HashEmbedder": "._embedders",
        "USEEmbedder": "._embedders",
        "embedder_names": "._embedders",
        "load_embedder": "._embedders",
        "BackgroundIndexer": "._engine",
        "MemoryEngine": "._engine",
        "NewMemory": "._engine",
        "memory_store": "._open",
        "open_engine": "._open_engine",
        "open_store": "._open",
        "RecallWeights": "._recall",
        "CATEGORIES": "._records",
        "SOURCES": "._records",
        "KEYS_DESCRIPTION": "._records",
        "MAX_KEYS": "._records",
        "MAX_KEY_CHARS": "._records",
        "Hit": "._records",
        "Memory": "._records",
        "RememberResult": "._records",
        "MEMORY_SCHEMA": "._schema",
        "distance": "._scopes",
        "lineage": "._scopes",
        "normalize_scope": "._scopes",
        "sources_ranked": "._sources",
        "SQLiteMemoryStore": "._sqlite_store",
        "MemoryStore": "._store",
        "StoreStats": "._store",
        "content_hash": "._text",
        "normalize": "._text",
        "terms": "._text",
        "ImportReport": "._transfer",
        "export_lines": "._transfer",
        "import_file": "._transfer",
        "import_items": "._transfer",
        "parse_lines": "._transfer",
        "EXTRACTION_PROMPT": "._extract",
        "ExtractionReport": "._extract",
        "Extractor": "._extract",
        "Turn": "._extract",
        "ExtractionQueue": "._jobs",
        "ExtractionSettings": "._jobs",
        "JobOutcome": "._jobs",
    },
)
