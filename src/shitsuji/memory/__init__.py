"""Long-term memory: one fact per row, scoped, found by meaning and by words.

Extraction (pydantic, the model layer) loads on first use, keeping the prompt hook's
start-up light.
"""

from typing import TYPE_CHECKING, Any

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
from ._open import open_engine
from ._recall import RecallWeights
from ._records import CATEGORIES, SOURCES, Hit, Memory, RememberResult
from ._scopes import distance, lineage, normalize_scope
from ._sqlite_store import SQLiteMemoryStore, open_store
from ._store import MemoryStore, StoreStats
from ._text import content_hash, normalize, terms
from ._transfer import ImportReport, export_lines, import_file, import_items, parse_lines

__all__ = [
    "CATEGORIES",
    "DEFAULT_EMBEDDER",
    "EXTRACTION_PROMPT",
    "SOURCES",
    "BackgroundIndexer",
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
    "normalize",
    "normalize_scope",
    "open_engine",
    "open_store",
    "parse_lines",
    "terms",
]

if TYPE_CHECKING:
    from ._extract import EXTRACTION_PROMPT, ExtractionReport, Extractor, Turn
    from ._jobs import ExtractionQueue, ExtractionSettings, JobOutcome

_LAZY = {
    "EXTRACTION_PROMPT": "._extract",
    "ExtractionReport": "._extract",
    "Extractor": "._extract",
    "Turn": "._extract",
    "ExtractionQueue": "._jobs",
    "ExtractionSettings": "._jobs",
    "JobOutcome": "._jobs",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
