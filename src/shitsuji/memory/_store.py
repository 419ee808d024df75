"""The storage seam: what memory needs from a database, and nothing about ranking.

Recall logic (fusion, weighting, scope distance) lives in ``shitsuji.memory``; a store
only answers exact questions: rows by id or hash, the best keyword and vector matches
within a set of scopes, and which rows still lack a vector. SQLite implements it now; a
PostgreSQL + pgvector store implements the same Protocol.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from .. import store as db
from ._records import Memory
from ._slots import Asked, Match, Ranked, Terms


@dataclass(frozen=True, slots=True)
class StoreStats:
    memories: int
    deleted: int
    indexed: int
    by_scope: dict[str, int]
    by_category: dict[str, int]
    embedding_models: dict[str, int]
    path: str
    schema_version: int


class MemoryStore(Protocol):
    """Durable storage of memory rows with their keyword terms and vectors, on the process's
    ``Database`` (``database``)."""

    @property
    def database(self) -> db.Database: ...

    def write(self) -> AbstractContextManager[db.Tx]:
        """A write transaction on ``database`` (a savepoint in this thread's open one): the store's
        own writes inside it join it, so a caller commits them with rows of its own (an audit row)."""
        ...

    def insert(self, memory: Memory, terms: str) -> None:
        """Store a row with its keyword terms: one line per chunk, terms separated by spaces."""
        ...

    def insert_many(self, rows: Sequence[tuple[Memory, str]]) -> None: ...

    def get(self, memory_id: str) -> Memory | None: ...

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]: ...

    def resolve_id(
        self, id_or_prefix: str, *, scopes: Sequence[str] | None = None, include_deleted: bool = True
    ) -> str | None:
        """The one id starting with ``id_or_prefix`` among rows in ``scopes`` (all when None), else None."""
        ...

    def find_by_hash(self, scope: str, content_hash: str) -> Memory | None: ...

    def stored_hashes(self, keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
        """The (scope, content hash) pairs of ``keys`` a live row holds: ``find_by_hash`` for a batch."""
        ...

    def list_memories(
        self,
        scope: str | None,
        *,
        include_deleted: bool,
        only_deleted: bool = False,
        limit: int | None = None,
    ) -> Iterator[Memory]: ...

    def touch(self, memory_id: str, at: datetime, importance: float | None = None) -> None: ...

    def held_keys(self, memory_id: str) -> tuple[tuple[str, ...], str | None] | None:
        """A live row's keys and who gave them, the row held until the caller's write commits."""
        ...

    def set_keys(self, memory_id: str, keys: tuple[str, ...], keys_by: str | None, terms: str) -> None:
        """Give a live row new search keys and the terms made with them; its vector is made again."""
        ...

    def set_deleted(self, memory_id: str, deleted_at: datetime | None) -> None: ...

    def set_valid_until(
        self, memory_id: str, valid_until: datetime | None, provenance_patch: dict[str, Any]
    ) -> None:
        """Mark a row as no longer true from ``valid_until`` (None: true again), merging
        ``provenance_patch`` into its provenance."""
        ...

    def patch_provenance(self, memory_id: str, patch: dict[str, Any]) -> bool:
        """Merge ``patch`` into a live row's provenance in one transaction; False when there is none."""
        ...

    def purge_deleted(self) -> int: ...

    def keyword_search(self, terms: Sequence[str], scopes: Sequence[str], limit: int) -> list[Match]:
        """Live rows in ``scopes`` matching any term, best first (higher is better), best chunk each."""
        ...

    def vector_search(
        self, model_id: str, vector: npt.NDArray[np.float32], scopes: Sequence[str], limit: int
    ) -> list[Match]:
        """Live rows in ``scopes`` indexed by ``model_id``, by cosine similarity of their best chunk."""
        ...

    def candidates(
        self, terms: Terms, model_id: str, vector: Asked, scopes: Sequence[str], limit: int
    ) -> Ranked:
        """Recall's candidates: ``"keyword"`` as ``keyword_search`` (when ``terms`` is not None) and
        ``"vector"`` as ``vector_search`` (when ``vector`` is not None), in one round trip where the
        store has a server."""
        ...

    def memories_with_vectors(
        self, memory_ids: Sequence[str], model_id: str | None
    ) -> tuple[dict[str, Memory], dict[str, npt.NDArray[np.float32]]]:
        """``get_many(memory_ids)`` and, when ``model_id`` is given, ``vectors_of(model_id, memory_ids)``
        (recall's one read of its candidates)."""
        ...

    def vectors_of(self, model_id: str, memory_ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The first chunk's vector of those ``memory_ids`` a recent ``vector_search`` had at hand
        (a cache look-up, never a query; missing ids are left out)."""
        ...

    def put_vectors(self, model_id: str, rows: Sequence[tuple[str, npt.NDArray[np.float32]]]) -> None:
        """Store each memory's chunk vectors, shape (chunks, dim)."""
        ...

    def unindexed(
        self, model_id: str, limit: int, after: int = 0
    ) -> list[tuple[int, str, str, str | None, tuple[str, ...]]]:
        """Up to ``limit`` live rows without a vector from ``model_id``: (position, id, content, context, keys).

        Positions increase; pass the last one seen as ``after`` to continue from there.
        """
        ...

    def count_unindexed(self, model_id: str) -> int: ...

    def count_awaiting_vectors(self, model_id: str) -> int:
        """Live rows to be embedded again that still hold a vector of ``model_id`` (found by it meanwhile)."""
        ...

    def embedded_otherwise(self, model_id: str) -> bool:
        """Whether a live memory has a vector from another model than ``model_id`` (an index seek)."""
        ...

    def count_without_readings(self) -> int:
        """Live memories with Japanese words whose terms were made before readings were indexed."""
        ...

    def reset_index(self) -> None:
        """Drop every derived index (vectors and keyword terms are rebuilt by the caller)."""
        ...

    def rewrite_terms(self, rows: Sequence[tuple[str, str]]) -> None: ...

    def set_about(self, rows: Sequence[tuple[str, str | None]]) -> None:
        """Store each row's ``about`` column (id, ``_about.about_column``): what ``fill_about`` fills."""
        ...

    def about_due(self, limit: int, after: int = 0) -> list[tuple[int, Memory]]:
        """Rows past rowid ``after`` whose ``about`` waits to be stored (``_about.DUE``), by rowid."""
        ...

    def count_about_due(self) -> int:
        """Live rows past ``about_walked`` whose ``about`` waits to be stored (``_about.DUE``)."""
        ...

    def about_walked(self) -> int:
        """The last rowid ``fill_about`` looked at by this code's reading rules (0: none)."""
        ...

    def last_rowid(self) -> int:
        """The highest rowid of the memories (0: none)."""
        ...

    def set_about_walked(self, rowid: int) -> None:
        """Note that the rows up to ``rowid`` hold their dates by this code's reading rules."""
        ...

    def bulk(self) -> AbstractContextManager[None]:
        """A bulk load (import, reindex): vector indexes may be built once when it ends, not per row."""
        ...

    def stats(self) -> StoreStats: ...

    def close(self) -> None: ...
