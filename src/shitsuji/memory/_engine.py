"""The memory engine: remember, recall, dedupe, forget — over a store and an embedder.

Writes commit the row first; the vector is added afterwards (inline for a single
``remember``, in batches for imports, or by a ``BackgroundIndexer``), and an embedder
failure never loses the row: recall still finds unindexed rows by their words, and the
next ``index_pending`` or ``reindex`` fills the gap.

A change and its audit row are one transaction (``_change``): the rows it writes, the facts it
supersedes or brings back and the row saying who did it commit together or not at all. Embedding
and searching happen before it opens, so it holds the database for the writes alone; the vector
(derived, like the keyword index) is stored just after it commits — on PostgreSQL a model's
first vector makes its table, DDL that must not wait inside a transaction holding memory rows.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..errors import EmbedderError, NotFoundError, UserInputError
from ..store import may_lag
from ._about import about_column
from ._advice import asked_terms
from ._embedders import Embedder, Matrix, Vector, close_cosine_of
from ._embedding import embed_rows, question_vector
from ._model_check import embedder_mismatch, readings_missing
from ._rank import CONTEXT_TERMS_CHARS, top_hits
from ._recall import RecallWeights
from ._records import (
    Hit,
    Memory,
    RememberResult,
    Source,
    check_category,
    check_content,
    check_importance,
    check_keys,
    merged_keys,
)
from ._row_facts import RowFacts
from ._said import said_terms, said_zone, stamp_zone
from ._scopes import lineage, normalize_scope
from ._slots import Match
from ._store import MemoryStore, StoreStats
from ._supersede import MIN_COSINE, same_subject
from ._text import chunks, content_hash, query_terms, terms
from ._values import same_values

if TYPE_CHECKING:
    from ..audit import AuditEvent, AuditLog
    from ..store import Tx

log = logging.getLogger(__name__)


Clock = Callable[[], datetime]
Progress = Callable[[int, int], None]
INDEX_BATCH = 64
#: Rows a write when ``fill_about`` stores the dates rows are about (one ``UPDATE``: 2 parameters a row).
ABOUT_BATCH = 450
SUPERSEDE_CANDIDATES = 5


def utcnow() -> datetime:
    return datetime.now(UTC)


def _expired(memory: Memory, now: datetime) -> bool:
    """Superseded or past its valid-until: a fact that no longer holds, so not a duplicate."""
    return memory.valid_until is not None and memory.valid_until <= now


def without_secrets(text: str) -> str:
    """``text`` with keys, tokens, passwords, card numbers and home paths masked: a memory never keeps one.

    Imported on first write: the prompt hook, which only reads, does not pay for the patterns.
    """
    from ..safety import sanitize

    return sanitize(text).text


def _may_see(memory: Memory, scopes: Collection[str] | None, deleted: bool) -> bool:
    return (scopes is None or memory.scope in scopes) and (deleted or memory.deleted_at is None)


def new_id() -> str:
    return secrets.token_hex(8)


def index_terms(
    content: str,
    context: str | None = None,
    keys: Collection[str] = (),
    said_at: datetime | None = None,
    zone: tzinfo = UTC,
) -> str:
    """Keyword terms as stored: one line per chunk, terms separated by spaces.

    Terms of the context's tail are added to every chunk, so a remembered chat line is
    also found by the words of the exchange it answered (LoCoMo dev: +0.016 recall@10);
    so are the terms of the fact's search keys (a model's synonyms and translation: パクチー
    found by "coriander" or 香草; docs/benchmarks.md, issue 23 ky23) and of the day it was said
    (``_said.said_terms``, in ``zone``, the speaker's; LoCoMo dev: +0.020).
    """
    extra = terms(context[-CONTEXT_TERMS_CHARS:]) if context else []
    extra += terms("\n".join(keys)) if keys else []
    extra += said_terms(said_at, zone)
    return "\n".join(" ".join(terms(piece) + extra) for piece in chunks(content))


def memory_terms(memory: Memory) -> str:
    """``index_terms`` of a stored memory (its content, context, keys and the day it was said, in its zone)."""
    return index_terms(
        memory.content, memory.context, memory.keys, memory.created_at, said_zone(memory.provenance)
    )


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A fact to store, already validated (see ``MemoryEngine.prepare``)."""

    content: str
    scope: str
    category: str = "misc"
    importance: float = 0.5
    source: Source = "remembered"
    provenance: dict[str, Any] | None = None
    created_at: datetime | None = None
    valid_until: datetime | None = None
    id: str | None = None
    context: str | None = None
    keys: tuple[str, ...] = ()
    keys_by: str | None = None  # who gave the keys ("model")


class MemoryEngine:
    """Long-term memory over a ``MemoryStore`` and an ``Embedder``."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        *,
        clock: Clock = utcnow,
        weights: RecallWeights | None = None,
        audit: AuditLog | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.weights = weights or RecallWeights()
        # recall's versions rule takes the embedder's own threshold unless the caller chose weights
        self._embedder_close_cosine = weights is None
        self._recent: dict[str, Vector] = {}  # recent turns' vectors, reused when quoted as context
        self.audit = audit  # every change is recorded there, with who made it
        self._index_checked = False
        self._row_facts = RowFacts()  # what recall's bounds know of rows it read (``_row_facts``)

    @contextmanager
    def _change(self) -> Iterator[Tx]:
        """One write transaction for a change and its audit row (the store's writes inside it are
        savepoints of it)."""
        with self.store.write() as tx:
            yield tx

    def _audit(self, event: AuditEvent, tx: Tx) -> None:
        """Record ``event`` in ``tx``, the change's transaction; an audit log kept in another database
        than the memories (two files wired by hand) records it in its own, as two databases share none."""
        if self.audit is None:
            return
        same = self.store.database is self.audit.database
        self.audit.record(event, tx if same else None)

    def _record(self, tx: Tx, action: str, memory: Memory, actor: str | None, **detail: Any) -> None:
        if self.audit is None:
            return
        from ..audit import AuditEvent

        origin = memory.provenance
        self._audit(
            AuditEvent(
                action=f"memory.{action}",
                actor=actor
                or str(origin.get("by") or ("extractor" if memory.source == "extracted" else "cli")),
                channel=origin.get("channel") if isinstance(origin.get("channel"), str) else None,
                conversation=origin.get("conversation")
                if isinstance(origin.get("conversation"), str)
                else None,
                subject=memory.id,
                scope=memory.scope,
                detail=detail,
            ),
            tx,
        )

    # -- writing ----------------------------------------------------------

    def remember(
        self,
        text: str,
        scope: str,
        *,
        category: str = "misc",
        importance: float = 0.5,
        source: Source = "remembered",
        provenance: dict[str, Any] | None = None,
        created_at: datetime | None = None,
        valid_until: datetime | None = None,
        context: str | None = None,
        keys: object = None,
        keys_by: str = "model",
        zone: tzinfo | None = None,
    ) -> RememberResult:
        """Store one fact, unless the scope already holds it (exactly or by meaning).

        ``context`` (e.g. the conversation turns just before) is embedded with the fact
        to sharpen its vector; it is kept with the row but never shown as the fact. With
        context, only an exact duplicate counts (the vector mostly reflects the context).
        ``keys`` (a few search words: synonyms, the category, a translation; ``check_keys``)
        are indexed with the fact's words and kept with ``keys_by``, who gave them; never shown.
        ``zone`` is the speaker's time zone: the fact is indexed under the day it was said there
        (kept in its provenance, ``_said.stamp_zone``); None: UTC's day.
        """
        checked_keys = check_keys(keys)
        new = NewMemory(
            content=without_secrets(check_content(text)),
            scope=normalize_scope(scope),
            category=check_category(category),
            importance=check_importance(importance),
            source=source,
            provenance=stamp_zone(provenance, zone) if zone is not None else provenance,
            created_at=created_at,
            valid_until=valid_until,
            context=without_secrets(context) if context else None,
            keys=tuple(without_secrets(k) for k in checked_keys),
            keys_by=keys_by if checked_keys else None,
        )
        vectors = self._try_embed(new.content, new.context, new.keys)
        # a vector shaped by context says little about the fact alone: exact dedupe only, no supersede
        fact_vectors = None if new.context else vectors
        near = self._neighbours(new.scope, fact_vectors)  # one search serves dedupe and supersede
        existing = self._duplicate_of(new.content, new.scope, fact_vectors, near)
        if existing is not None:
            memory, similarity = existing
            now = self.clock()
            refreshed = replace(memory, updated_at=now, importance=max(memory.importance, new.importance))
            keys = merged_keys(memory.keys, new.keys) if new.keys and similarity == 1.0 else memory.keys
            if keys != memory.keys:  # an exact repeat with new keys: they describe the same words
                refreshed = self._keys_added(refreshed, new.keys, new.keys_by, new.importance)
            else:
                self.store.touch(memory.id, now, importance=new.importance)
            return RememberResult(refreshed, duplicate=True, similarity=similarity)
        older = self._superseded_by(new, fact_vectors, near)
        if older:
            link = older[0] if len(older) == 1 else older
            new = replace(new, provenance={**(new.provenance or {}), "supersedes": link})
        memory = self._build(new)
        with self._change() as tx:
            self.store.insert(memory, memory_terms(memory))
            for old_id in older:  # kept, linked and restorable: see _supersede
                self.store.set_valid_until(old_id, memory.created_at, {"superseded_by": memory.id})
            action = "extracted" if source == "extracted" else "remembered"
            self._record(tx, action, memory, None, category=memory.category)
        memory = self._put_vector(memory, vectors)
        return RememberResult(memory, duplicate=False, superseded=tuple(older))

    def _keys_added(
        self, memory: Memory, new_keys: tuple[str, ...], keys_by: str | None, importance: float
    ) -> Memory:
        """``memory`` (touched) with ``new_keys`` merged into the keys it holds when written — its terms made
        again and its vector too — with the touch and the audit row in one write.

        The merge is made again on the row held in that write (``held_keys``): two writers bringing keys
        to the same fact at once both keep theirs, whichever commits first. The embedder runs before the
        write, on the keys read then; only when another writer's keys came in meanwhile does it run again,
        inside (the rare case; failed, the vector is left for ``index_pending``)."""
        keys = merged_keys(memory.keys, new_keys)
        vectors = self._try_embed(memory.content, memory.context, keys)
        with self._change() as tx:
            held = self.store.held_keys(memory.id)
            if held is None:  # forgotten meanwhile
                return memory
            self.store.touch(memory.id, memory.updated_at, importance=importance)
            stored, stored_by = held
            merged = merged_keys(stored, new_keys)
            if merged == stored:  # another writer's repeat brought them first
                return replace(memory, keys=stored, keys_by=stored_by)
            if merged != keys:  # another writer's keys came in since they were read: embed this set
                vectors = self._try_embed(memory.content, memory.context, merged)
            keyed = replace(memory, keys=merged, keys_by=stored_by or keys_by, embedding_model=None)
            self.store.set_keys(memory.id, keyed.keys, keyed.keys_by, memory_terms(keyed))
            if vectors is not None:
                self.store.put_vectors(self.embedder.model_id, [(memory.id, vectors)])
                keyed = replace(keyed, embedding_model=self.embedder.model_id)
            self._record(tx, "keys_added", keyed, None, keys=len(merged) - len(stored))
        return keyed

    def _put_vector(self, memory: Memory, vectors: Matrix | None) -> Memory:
        """Store a new row's vector (after its change committed; None: left for ``index_pending``)."""
        if vectors is None:
            return memory
        self.store.put_vectors(self.embedder.model_id, [(memory.id, vectors)])
        return replace(memory, embedding_model=self.embedder.model_id)

    def find_duplicate(self, text: str, scope: str) -> RememberResult | None:
        """The memory in ``scope`` that ``text`` would duplicate, if any (nothing is written)."""
        content = check_content(text)
        found = self._duplicate_of(content, normalize_scope(scope), self._try_embed(content, None, ()))
        if found is None:
            return None
        return RememberResult(found[0], duplicate=True, similarity=found[1])

    def add_many(self, items: Iterable[NewMemory], *, batch: int = 500) -> tuple[int, int]:
        """Bulk insert (exact dedupe only, no embedding); returns (added, duplicates).

        Rows are committed in batches and left for ``index_pending`` to embed; each batch's
        audit row ("memory.imported", its row count) commits with it. The stored rows a batch of
        lines could repeat (their hashes, their ids) are read once a batch, not once a line.
        """
        added = duplicates = 0
        pending: list[tuple[Memory, str]] = []
        seen: set[tuple[str, str]] = set()
        used: set[str] = set()  # ids given to this import's rows
        lines = iter(items)
        while chunk := [
            replace(
                item,
                content=without_secrets(item.content),
                context=without_secrets(item.context) if item.context else None,
            )
            for item in islice(lines, batch)
        ]:
            keys = [(item.scope, content_hash(item.content)) for item in chunk]
            stored = self.store.stored_hashes(keys)
            taken = used | set(self.store.get_many([item.id for item in chunk if item.id]))
            for item, key in zip(chunk, keys, strict=True):
                if key in seen or key in stored:
                    duplicates += 1
                    continue
                seen.add(key)
                memory = self._build(item, taken)
                used.add(memory.id)
                taken.add(memory.id)
                pending.append((memory, memory_terms(memory)))
                if len(pending) >= batch:
                    added += self._import(pending)
        added += self._import(pending)
        return added, duplicates

    def _import(self, pending: list[tuple[Memory, str]]) -> int:
        """Insert a batch with its audit row, in one transaction; how many rows (the batch is emptied)."""
        if not pending:
            return 0
        from ..audit import AuditEvent

        with self._change() as tx:
            self.store.insert_many(pending)
            self._audit(AuditEvent(action="memory.imported", actor="cli", detail={"rows": len(pending)}), tx)
        count = len(pending)
        pending.clear()
        return count

    def _build(self, new: NewMemory, taken: Collection[str] | None = None) -> Memory:
        """The row for ``new``: its own id unless that is stored (or in ``taken``, the ids a batch
        already knows to be stored or used: then the store is not asked), else a new one."""
        now = self.clock()
        memory_id = new.id
        if memory_id is None or (
            memory_id in taken if taken is not None else self.store.get(memory_id) is not None
        ):
            memory_id = new_id()
        return Memory(
            id=memory_id,
            scope=new.scope,
            content=new.content,
            category=new.category,
            importance=new.importance,
            source=new.source,
            provenance=dict(new.provenance or {}),
            created_at=new.created_at or now,
            updated_at=now,
            valid_until=new.valid_until,
            content_hash=content_hash(new.content),
            context=new.context,
            keys=new.keys,
            keys_by=new.keys_by if new.keys else None,
        )

    def _neighbours(self, scope: str, vectors: Matrix | None) -> list[Match]:
        """The nearest memories in ``scope`` by meaning, for a one-chunk fact (documents: none)."""
        if vectors is None or len(vectors) != 1:
            return []
        return self.store.vector_search(self.embedder.model_id, vectors[0], [scope], SUPERSEDE_CANDIDATES)

    def _duplicate_of(
        self, content: str, scope: str, vectors: Matrix | None, near: list[Match] | None = None
    ) -> tuple[Memory, float] | None:
        """A live memory in ``scope`` with the same text, or (for one-chunk facts) the same meaning."""
        now = self.clock()
        exact = self.store.find_by_hash(scope, content_hash(content))
        if exact is not None and not _expired(exact, now):
            return exact, 1.0
        if vectors is None or len(vectors) != 1:  # documents are deduplicated by exact text only
            return None
        best = near if near is not None else self._neighbours(scope, vectors)
        for match in best:
            if match.score < self.embedder.dedupe_threshold:
                break
            memory = self.store.get(match.memory_id)
            # near in meaning is not enough: the values (numbers, days, negation, a restated subject's
            # new ending) must agree, or "… is Thursday" would be dropped as "… is Tuesday" (_values)
            if (
                memory is not None
                and memory.deleted_at is None
                and not _expired(memory, now)
                and same_values(memory.content, content)
            ):
                return memory, match.score
        return None

    def _superseded_by(self, new: NewMemory, vectors: Matrix | None, near: list[Match]) -> list[str]:
        """Ids of live facts in ``new``'s scope that it restates with a new value (``_supersede``).

        Only a one-chunk fact without context can supersede (a chat turn with context is
        a record of what was said, not a current fact); candidates are its nearest
        neighbours by meaning, or by words when the embedder did not run.
        """
        if new.context or len(chunks(new.content)) != 1:
            return []
        if vectors is not None and len(vectors) == 1:
            ids = [m.memory_id for m in near if m.score >= MIN_COSINE]
        else:
            found = self.store.keyword_search(query_terms(new.content), [new.scope], SUPERSEDE_CANDIDATES)
            ids = [m.memory_id for m in found]
        now = self.clock()
        stated = new.created_at or now
        older = self.store.get_many(ids)
        return [
            m.id
            for m in (older[i] for i in ids if i in older)
            if m.deleted_at is None
            and not _expired(m, now)
            and not m.context
            and m.created_at <= stated  # a fact stated earlier never replaces a later one
            and same_subject(m.content, new.content)
        ]

    def _try_embed(self, content: str, context: str | None, keys: Sequence[str]) -> Matrix | None:
        try:
            return embed_rows(self.embedder, [(content, context, keys)], self._recent)[0]
        except Exception as exc:  # a broken model must not lose the write
            log.warning("embedding failed, the row will be indexed later: %s", exc)
            return None

    # -- reading ----------------------------------------------------------

    def index_warning(self) -> str | None:
        """Once per engine: a warning when the stored index was made otherwise than this engine
        searches it (``_model_check``: vectors of another model, terms without Japanese readings),
        else None. ``recall`` logs it; a command line prints it first."""
        if self._index_checked:
            return None
        self._index_checked = True
        said = (embedder_mismatch(self.store, self.embedder), readings_missing(self.store))
        return " ".join(s for s in said if s) or None

    @may_lag  # the acting member's recall may read a streaming replica (``store._replica``)
    def recall(
        self,
        query: str,
        scope: str,
        *,
        k: int = 5,
        semantic: bool = True,
        lexical: bool = True,
        vector: Vector | None = None,
        zone: tzinfo = UTC,
    ) -> list[Hit]:
        """The ``k`` best memories for ``query`` visible from ``scope`` (itself and its ancestors).

        ``semantic=False`` searches by words only and never touches the embedding model;
        ``lexical=False`` by meaning only (the prompt hook, which shows nothing that is far
        in meaning, so it need not load the keyword index). ``vector`` is the query's
        embedding when the caller already has it. ``zone`` is the asker's time zone: "last
        month" and 先週 are spans of their calendar (``_when``).
        """
        text = query.strip()
        if not text:
            raise UserInputError("query is empty: say what to recall")
        if k < 1:
            raise UserInputError(f"k must be at least 1, got {k}")
        chain = lineage(scope)
        n = max(self.weights.candidates, k * 3)
        asked = asked_terms(text, self.weights)  # without "can you recommend" and the like (``_advice``)
        if not semantic:
            vector = None
        elif vector is None:
            try:
                vector = question_vector(self.embedder, text, words=self.weights.word_meanings)
            except Exception as exc:  # keep answering by words when the model is down
                log.warning("query embedding failed, recalling by keywords only: %s", exc)
        # both searches in one call: one round trip on PostgreSQL
        words = asked if lexical or not semantic else None
        ranked = self.store.candidates(words, self.embedder.model_id, vector, chain, n)
        if (warning := self.index_warning()) is not None:
            log.warning("%s", warning)
        # the vectors are read with the rows (one round trip on PostgreSQL): ``weigh`` compares the
        # vectors of its hits to find versions of one fact; only the rows that can reach the first k
        model = self.embedder.model_id if "vector" in ranked else None
        return top_hits(
            text,
            asked,
            ranked,
            chain,
            lambda ids: self.store.memories_with_vectors(ids, model),
            self.clock(),
            self.ranking_weights(),
            k,
            zone,
            self._row_facts,
        )

    def ranking_weights(self) -> RecallWeights:
        """``weights``, with the embedder's ``close_cosine`` when it declares one and the caller chose
        no weights: what counts as "close" is the model's (e5 puts unrelated facts at 0.8-0.98)."""
        if not self._embedder_close_cosine:
            return self.weights
        own = close_cosine_of(self.embedder)
        if own is not None and own != self.weights.close_cosine:
            self.weights = replace(self.weights, close_cosine=own)
        return self.weights

    def get(
        self, memory_id: str, *, visible_scopes: Collection[str] | None = None, deleted: bool = True
    ) -> Memory:
        """The memory with this id (or unique id prefix of 4+ characters).

        With ``visible_scopes``, only memories in those scopes exist for this call: an id
        outside them is "not found", and a prefix is resolved among them alone, so whether
        a hidden memory shares the prefix never changes the answer. ``deleted=False``
        hides forgotten memories the same way.
        """
        ident = memory_id.strip()
        if not ident:
            raise UserInputError("memory id is empty")
        scopes = None if visible_scopes is None else sorted(set(visible_scopes))
        found = self.store.get(ident)
        if found is not None and not _may_see(found, scopes, deleted):
            found = None
        if found is None and len(ident) >= 4:
            full = self.store.resolve_id(ident, scopes=scopes, include_deleted=deleted)
            found = self.store.get(full) if full else None
        if found is None and len(ident) < 4:
            raise UserInputError(
                f"{ident!r} is too short to name a memory: give at least 4 characters of its id "
                "(`shitsuji list` shows them)"
            )
        if found is None:
            raise NotFoundError(f"no memory with id {ident!r}: `shitsuji list` shows the ids")
        return found

    def list_memories(
        self, scope: str | None = None, *, deleted: bool = False, limit: int | None = None
    ) -> Iterator[Memory]:
        """Memories in ``scope`` and below (all when None); ``deleted`` lists only forgotten ones."""
        return self.store.list_memories(
            normalize_scope(scope) if scope else None,
            include_deleted=False,
            only_deleted=deleted,
            limit=limit,
        )

    def stats(self) -> StoreStats:
        return self.store.stats()

    # -- forgetting -------------------------------------------------------

    def forget(self, memory_id: str, *, by: str | None = None) -> Memory:
        """Soft-delete: hidden from recall, kept until ``purge``.

        Forgetting a fact that superseded others brings those back: the correction is gone,
        so what it replaced holds again.
        """
        memory = self.get(memory_id)
        if memory.deleted_at is None:
            now = self.clock()
            with self._change() as tx:
                self.store.set_deleted(memory.id, now)
                memory = replace(memory, deleted_at=now, updated_at=now)
                self._reinstate(memory)
                self._record(tx, "forgotten", memory, by or "cli")
        return memory

    def _reinstate(self, newer: Memory) -> None:
        """Clear the supersession of the facts ``newer`` superseded (theirs only, not a later one's)."""
        link = newer.provenance.get("supersedes")
        ids = [link] if isinstance(link, str) else list(link or [])
        for old in self.store.get_many(ids).values():
            if old.provenance.get("superseded_by") == newer.id and old.valid_until is not None:
                self.store.set_valid_until(old.id, None, {"superseded_by": None, "restored_from": newer.id})

    def restore(self, memory_id: str, *, by: str | None = None) -> Memory:
        """Bring back a forgotten memory, or one a newer fact superseded (it holds again)."""
        memory = self.get(memory_id)
        with self._change() as tx:
            if memory.deleted_at is not None:
                self.store.set_deleted(memory.id, None)
                memory = replace(memory, deleted_at=None)
                self._record(tx, "restored", memory, by or "cli")
            if memory.provenance.get("superseded_by") and memory.valid_until is not None:
                patch = {"superseded_by": None, "restored_from": memory.provenance["superseded_by"]}
                self.store.set_valid_until(memory.id, None, patch)
                memory = replace(memory, valid_until=None, provenance={**memory.provenance, **patch})
                self._record(tx, "restored", memory, by or "cli", superseded=True)
        return memory

    def relabel(self, memory_id: str, patch: dict[str, Any], *, by: str | None = None) -> Memory:
        """Change a live memory's provenance labels (the file name Claude's memory tool keeps), not its
        words: the same row, changed in one transaction, so a failure leaves it as it was (a forget and a
        remember could lose it between the two). Recall, vectors and id stay; audited as ``relabelled``."""
        memory = self.get(memory_id)
        with self._change() as tx:  # the label and its audit row commit together
            if memory.deleted_at is not None or not self.store.patch_provenance(memory.id, patch):
                raise UserInputError(f"memory {memory.id} is forgotten: restore it before renaming")
            memory = replace(memory, provenance={**memory.provenance, **patch})
            self._record(tx, "relabelled", memory, by or "cli", **patch)
        return memory

    def edit(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        category: str | None = None,
        importance: float | None = None,
        by: str | None = None,
    ) -> Memory:
        """Correct a memory: the new version replaces the old, which is forgotten (restorable).

        The new row keeps the old one's scope, source and provenance, adds ``edited_from``
        (and ``edited_by``), and is embedded and indexed like any new fact. Editing a
        forgotten memory is refused: restore it first.
        """
        old = self.get(memory_id)
        if old.deleted_at is not None:
            raise UserInputError(f"memory {old.id} is forgotten: restore it before editing")
        new_content = without_secrets(check_content(content)) if content is not None else old.content
        new_category = check_category(category) if category is not None else old.category
        new_importance = check_importance(importance) if importance is not None else old.importance
        if (new_content, new_category, new_importance) == (old.content, old.category, old.importance):
            return old
        provenance = {**old.provenance, "edited_from": old.id, **({"edited_by": by} if by else {})}
        now = self.clock()
        memory = self._build(
            NewMemory(
                content=new_content,
                scope=old.scope,
                category=new_category,
                importance=new_importance,
                source=old.source,
                provenance=provenance,
                created_at=now,
                valid_until=old.valid_until,
                context=old.context if new_content == old.content else None,
                # keys describe the text they came with: a new text drops them
                keys=old.keys if new_content == old.content else (),
                keys_by=old.keys_by if new_content == old.content else None,
            )
        )
        # before the transaction (it may be slow); the keys it kept move the vector as they did the old one's
        vectors = self._try_embed(memory.content, memory.context, memory.keys)
        with self._change() as tx:
            self.store.insert(memory, memory_terms(memory))
            self.store.set_deleted(old.id, now)
            self._record(tx, "edited", memory, by or "cli", edited_from=old.id)
        return self._put_vector(memory, vectors)

    def purge(self) -> int:
        """Hard-delete every forgotten memory; returns how many rows went."""
        from ..audit import AuditEvent

        with self._change() as tx:
            gone = self.store.purge_deleted()
            if gone:
                self._audit(AuditEvent(action="memory.purged", actor="cli", detail={"rows": gone}), tx)
        return gone

    # -- derived indexes --------------------------------------------------

    def pending(self) -> int:
        return self.store.count_unindexed(self.embedder.model_id)

    def index_pending(self, *, progress: Progress | None = None, batch: int = INDEX_BATCH) -> int:
        """Embed every live row that has no vector from the current model; returns how many."""
        total = self.pending()
        if not total:  # the count is an index seek; the rows' walk below would read the whole table
            return 0
        done = position = 0
        lines: dict[str, Vector] = {}  # context lines shared by consecutive chat turns: embedded once
        while rows := self.store.unindexed(self.embedder.model_id, batch, after=position):
            position = rows[-1][0]
            try:
                vectors = embed_rows(
                    self.embedder, [(content, context, keys) for _, _, content, context, keys in rows], lines
                )
            except Exception as exc:
                raise EmbedderError(f"embedding failed after {done} rows: {exc}") from exc
            self.store.put_vectors(
                self.embedder.model_id, [(row[1], v) for row, v in zip(rows, vectors, strict=True)]
            )
            done += len(rows)
            if progress is not None:
                progress(done, max(total, done))
        return done

    def fill_about(self, *, batch: int = ABOUT_BATCH) -> int:
        """Store the dates each row's text is about where they wait (``_about.DUE``: written before the
        column, or by other reading rules; recall reads such a row's text meanwhile), ``batch`` rows a
        write, no vector touched; returns how many rows were read. Only the rows written since the last
        walk by these rules are looked at (``_about``: ``about_walked``), by their rowid."""
        position, top = self.store.about_walked(), self.store.last_rowid()
        if position >= top:
            return 0  # nothing written since: no row read
        done = 0
        while rows := self.store.about_due(batch, after=position):
            position = rows[-1][0]
            self.store.set_about([(m.id, about_column(m)) for _, m in rows])
            done += len(rows)
        self.store.set_about_walked(
            top
        )  # rows after ``top`` were written with their dates, or are the next walk's
        return done

    def index_in_background(self) -> threading.Thread:
        """Store the dates rows are about where they wait (``fill_about``), then embed, in a thread of
        its own, the rows left without a vector of this model — a failed embed, the keyed facts
        ``0027_rk26_keyed_vectors_again`` marked — for a long-running process at its start
        (``serve``): the embedder is made, and the rows counted (0.8 s at 1M), off the start. Not
        when the stored vectors are another model's: switching every row's model is ``reindex``'s, which
        the recall warning names. A failure is logged; the rows stay pending for the next run."""

        def run() -> None:
            try:
                self.fill_about()  # no embedder needed: first
            except Exception:
                log.exception("storing the dates the rows are about failed; recall reads their text")
            try:
                if not self.store.embedded_otherwise(self.embedder.model_id):
                    self.index_pending()
            except Exception:
                log.exception("embedding the pending rows failed; they stay pending")

        thread = threading.Thread(target=run, name="shitsuji-index-pending", daemon=True)
        thread.start()
        return thread

    def reindex(self, *, progress: Progress | None = None) -> int:
        """Rebuild every derived index (keyword terms, the dates a text is about, vectors) from the rows."""
        self.store.reset_index()
        top = self.store.last_rowid()
        memories = list(self.store.list_memories(None, include_deleted=True))
        for start in range(0, len(memories), 1000):
            chunk = memories[start : start + 1000]
            self.store.rewrite_terms([(m.id, memory_terms(m)) for m in chunk])
            # the dates where they wait (``fill_about``'s rows: not stored, or by other rules), no walk again
            self.store.set_about([(m.id, about_column(m)) for m in chunk if m.about is None])
        self.store.set_about_walked(
            top
        )  # every row up to ``top`` was read: the next start walks none of them
        with self.store.bulk():  # every vector again: graph indexes are built once, at the end
            return self.index_pending(progress=progress)


class BackgroundIndexer:
    """Embeds new rows off the caller's path, for long-running processes.

    ``notify()`` after writes; a daemon thread wakes, indexes in batches and sleeps again.
    Failures are logged and retried on the next notification, never raised at the writer.
    """

    def __init__(self, engine: MemoryEngine) -> None:
        self._engine = engine
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="shitsuji-indexer", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        self._idle.clear()
        self._wake.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self._engine.index_pending()
            except Exception:
                log.exception("background indexing failed; will retry on the next write")
            if not self._wake.is_set():
                self._idle.set()
