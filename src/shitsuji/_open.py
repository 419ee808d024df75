"""``open_memory``: memory for library use, from the arguments or the environment (an edge, like the CLI)."""

from __future__ import annotations

from pathlib import Path

from .config import Settings
from .memory import MemoryEngine
from .memory._open_engine import open_engine
from .store import is_postgres


def open_memory(db: str | Path | None = None, embedder: str | None = None) -> MemoryEngine:
    """A ready ``MemoryEngine`` over the database (a file or a ``postgresql://`` URL) and embedder named here or by the environment
    (for reading and for library use: its changes are not audited; the CLI's and the apps' are)."""
    url = str(db) if db is not None and is_postgres(db) else None
    settings = Settings.from_env(db=None if url else db, embedder=embedder, database_url=url)
    return open_engine(settings.database, settings.embedder, cache_dir=settings.cache_dir, audited=False)
