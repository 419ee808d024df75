"""Opening memory at the edge: the store for a database, the embedder by name, the audit log.

The CLI, the web app's start-up and the hooks call this once with what ``config.Settings`` read;
nothing below them opens memory from the environment.
"""

from __future__ import annotations

from pathlib import Path

from ..audit import AuditLog
from ..store import database
from ._deferred import DeferredEmbedder
from ._engine import MemoryEngine
from ._open import open_store
from ._use_mapped import use_cache_dir


def open_engine(
    target: str, embedder: str, *, cache_dir: Path | None = None, audited: bool = True
) -> MemoryEngine:
    """A ``MemoryEngine`` over the database ``target`` (a file or a ``postgresql://`` URL) and the
    embedder named (made when text is first embedded: reading rows never loads it); ``audited``: its changes go to the audit log of the process's database."""
    use_cache_dir(cache_dir)  # the derived model caches (the mapped USE model)
    audit = AuditLog(database(target)) if audited else None
    return MemoryEngine(open_store(target), DeferredEmbedder(embedder), audit=audit)
