"""Segments: labelled spans of a conversation, archived when they close.

A segment's label comes from the caller — the web UI's open panel (``household.shopping``),
``chat`` for LINE, the project path for MCP — never from the model's guess; the model can
only open one through the explicit ``open_panel`` tool. Closing a segment archives its
messages (they stay stored) with a short summary from the cheap model, or a truncated
digest when that fails. ``list_segments`` and ``load_segment`` bring them back. A segment
belongs to the pair (household, owner): two households may both have a ``wife``.

Which earlier segment a fact was said in: a fact the extractor wrote keeps the conversation
and the segment label it came from (``memory._jobs``: its provenance), so the segments of
recalled facts are found without searching archived messages again (``said_in``), ranked as
the benches measure it (``memory.sources_ranked``: two best facts per segment).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import zip_longest

from .. import store as db
from .._offload import off_loop
from ..errors import ModelError, NotFoundError, UserInputError
from ..llm import Message
from ..memory import Hit, sources_ranked
from ._schema import CONTEXT_SCHEMA
from ._window import Summarizer, _plain

log = logging.getLogger(__name__)
DIGEST_CHARS = 300
MAX_LABEL = 100


@dataclass(frozen=True, slots=True)
class Segment:
    id: str
    conversation: str
    household: str | None
    owner: str
    label: str
    opened_at: datetime
    closed_at: datetime | None
    first_message: int
    last_message: int | None
    summary: str | None
    untrusted: bool = False  # its messages held outside text: what it brings back stays untrusted

    def index_line(self) -> str:
        span = f"{self.opened_at:%Y-%m-%d %H:%M}–{self.closed_at:%H:%M}" if self.closed_at else "open"
        return f"{self.id} [{self.label}] {span}: {self.summary or '(no summary)'}"


def check_label(label: str) -> str:
    text = label.strip()
    if not text or len(text) > MAX_LABEL or any(c.isspace() for c in text):
        raise UserInputError(f"segment label {label!r} is not valid: one word up to {MAX_LABEL} characters")
    return text


class Segments(db.Store):
    SCHEMA = CONTEXT_SCHEMA

    def current(self, conversation: str) -> Segment | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM segments WHERE conversation = ? AND closed_at IS NULL", (conversation,)
        ).fetchone()
        return _row(row) if row else None

    async def open_segment(
        self,
        conversation: str,
        household: str | None,
        owner: str,
        label: str,
        messages: Sequence[Message],
        *,
        summarizer: Summarizer | None = None,
        untrusted: Sequence[bool] = (),
    ) -> Segment:
        """Start a segment at the conversation's next message; an open one is closed first (one panel at a time)."""
        name = check_label(label)
        await self.close_segment(conversation, messages, summarizer=summarizer, untrusted=untrusted)
        segment = Segment(
            "s_" + secrets.token_hex(6),
            conversation,
            household,
            owner,
            name,
            self.clock(),
            None,
            len(messages),
            None,
            None,
        )
        await off_loop(self._insert, segment)
        return segment

    def _insert(self, segment: Segment) -> None:
        with self._conn.write() as conn:
            conn.execute(
                "INSERT INTO segments (id, conversation, household, owner, label, opened_at, first_message) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    segment.id,
                    segment.conversation,
                    segment.household,
                    segment.owner,
                    segment.label,
                    segment.opened_at.isoformat(),
                    segment.first_message,
                ),
            )

    async def close_segment(
        self,
        conversation: str,
        messages: Sequence[Message],
        *,
        summarizer: Summarizer | None = None,
        untrusted: Sequence[bool] = (),
    ) -> Segment | None:
        """Archive the open segment (if any): its messages and a short summary.

        ``untrusted`` flags each message of the conversation that carries outside text; a
        segment holding any is archived as untrusted, and stays so wherever it is shown.
        """
        segment = await off_loop(self.current, conversation)
        if segment is None:
            return None
        span = list(messages[segment.first_message :])
        tainted = any(untrusted[segment.first_message :])
        summary = await _summarize(span, summarizer)
        return await off_loop(self._close, segment, len(messages), summary, span, tainted)

    def _close(
        self, segment: Segment, last: int, summary: str, span: list[Message], tainted: bool
    ) -> Segment:
        closed = self.clock()
        with self._conn.write() as conn:
            conn.execute(
                "UPDATE segments SET closed_at = ?, last_message = ?, summary = ?, messages = ?, untrusted = ? "
                "WHERE id = ? AND closed_at IS NULL",  # closed once, should two requests close it at once
                (
                    closed.isoformat(),
                    last,
                    summary,
                    json.dumps(span, ensure_ascii=False),
                    int(tainted),
                    segment.id,
                ),
            )
        return self.get(segment.id, segment.household, segment.owner)

    def get(self, segment_id: str, household: str | None, owner: str) -> Segment:
        member, pair = _member(household, owner)
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM segments WHERE id = ? AND {member}", (segment_id, *pair)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no segment {segment_id!r}: list_segments shows the ids")
        return _row(row)

    def index(
        self,
        household: str | None,
        owner: str,
        *,
        label: str | None = None,
        query: str | None = None,
        limit: int = 20,
    ) -> list[Segment]:
        """The member's closed segments, newest first, by label and/or words in the summary."""
        member, pair = _member(household, owner)
        sql = f"SELECT {_COLUMNS} FROM segments WHERE {member} AND closed_at IS NOT NULL"
        params: list[object] = [*pair]
        if label:
            sql += " AND label = ?"
            params.append(label)
        rows = self._conn.execute(sql + " ORDER BY opened_at DESC, id", params).fetchall()
        found = [_row(r) for r in rows]
        if query:
            words = [w.casefold() for w in query.split() if w]
            found = [s for s in found if any(w in f"{s.label} {s.summary or ''}".casefold() for w in words)]
        return found[:limit]

    def said_in(
        self,
        household: str | None,
        owner: str,
        hits: Iterable[Hit],
        *,
        label: str | None = None,
        limit: int = 20,
    ) -> list[Segment]:
        """The member's closed segments the recalled facts ``hits`` were said in, best first.

        A fact names its conversation and segment label (``_said_in``); a segment ranks by its two
        best facts (``sources_ranked``), and a label opened twice in one conversation lists its
        segments newest first. Facts of other members (the household's shared scope) lead to no
        segment of theirs: only the pair's own are read."""
        ranked = sources_ranked(hits, _said_in)
        if label:
            ranked = [key for key in ranked if key[1] == label]
        return _in_order(self._closed(household, owner, None, ranked), ranked)[:limit]

    def earlier(
        self,
        household: str | None,
        owner: str,
        *,
        label: str | None,
        hits: Iterable[Hit] = (),
        limit: int = 20,
    ) -> list[Segment]:
        """A turn's earlier segments, in one statement: where its recalled facts ``hits`` were said
        (best first, as ``said_in``) taking turns with those under the open ``label`` (newest first).

        Only the member's own closed segments: a shared fact of another member's leads to none of theirs."""
        ranked = sources_ranked(hits, _said_in)
        query = self.earlier_query(household, owner, label, ranked, limit)
        rows = self._conn.execute(*query).fetchall() if query else []
        said = [_row(r) for r in rows if int(str(r[-1])) >= 0]  # in the facts' order, newest first in each
        labelled = [_row(r) for r in rows if int(str(r[-1])) < 0]  # newest first
        merged = [s for pair in zip_longest(said, labelled) for s in pair if s is not None]
        return list(dict.fromkeys(merged))[:limit]

    @staticmethod
    def earlier_query(
        household: str | None, owner: str, label: str | None, ranked: Sequence[tuple[str, str]], limit: int
    ) -> tuple[str, list[object]] | None:
        """``earlier``'s one read (None: nothing to read): the pair's closed segments of the ranked
        (conversation, label) pairs, the first ``limit`` in their order (newest first in each pair), and
        the first ``limit`` under ``label``, newest first — each part bounded in SQL, so a member with
        hundreds of segments under one label or in one conversation reads ``2 * limit`` rows at most.
        Each row ends with its part: the pair's place in ``ranked``, or -1 for the label's. ``limit``
        of each part is enough: ``earlier`` takes the two in turns and keeps ``limit``."""
        member, pair = _member(household, owner)
        closed = f"{member} AND closed_at IS NOT NULL"
        parts: list[str] = []
        params: list[object] = []
        if ranked:
            pairs = ", ".join("(?, ?, ?)" for _ in ranked)
            parts.append(
                f"SELECT * FROM (SELECT {_COLUMNS}, place FROM segments JOIN (SELECT column1 AS said_conversation, "
                f"column2 AS said_label, column3 AS place FROM (VALUES {pairs}) AS v) AS said "
                f"ON conversation = said_conversation AND label = said_label WHERE {closed} "
                "ORDER BY place, opened_at DESC, id LIMIT ?) AS by_facts"
            )
            params += [x for n, (conversation, said) in enumerate(ranked) for x in (conversation, said, n)]
            params += [*pair, limit]
        if label:
            parts.append(
                f"SELECT * FROM (SELECT {_COLUMNS}, -1 AS place FROM segments WHERE {closed} AND label = ? "
                "ORDER BY opened_at DESC, id LIMIT ?) AS by_label"
            )
            params += [*pair, label, limit]
        if not parts:
            return None
        return " UNION ALL ".join(parts) + " ORDER BY place, opened_at DESC, id", params

    def _closed(
        self, household: str | None, owner: str, label: str | None, ranked: Sequence[tuple[str, str]]
    ) -> list[Segment]:
        """The member's closed segments under ``label`` or in the conversations of ``ranked``, newest first."""
        query = self.closed_query(
            household, owner, label, sorted({conversation for conversation, _ in ranked})
        )
        return [_row(r) for r in self._conn.execute(*query).fetchall()] if query else []

    @staticmethod
    def said_in_query(
        household: str | None, owner: str, conversations: Sequence[str]
    ) -> tuple[str, list[object]]:
        """``said_in``'s one read: the pair's closed segments of ``conversations``, newest first."""
        query = Segments.closed_query(household, owner, None, conversations)
        assert query is not None, "said_in reads only when some conversation is named"
        return query

    @staticmethod
    def closed_query(
        household: str | None, owner: str, label: str | None, conversations: Sequence[str]
    ) -> tuple[str, list[object]] | None:
        """The pair's closed segments under ``label`` or in ``conversations`` (None: nothing to read),
        in the form the ``segments_member`` index serves (``_member``)."""
        which = ["label = ?"] if label else []
        if conversations:
            which.append(f"conversation IN ({', '.join('?' for _ in conversations)})")
        if not which:
            return None
        member, pair = _member(household, owner)
        return (
            f"SELECT {_COLUMNS} FROM segments WHERE {member} "
            f"AND closed_at IS NOT NULL AND ({' OR '.join(which)}) ORDER BY opened_at DESC, id",
            [*pair, *([label] if label else []), *conversations],
        )

    def load(self, segment_id: str, household: str | None, owner: str) -> list[Message]:
        """The archived messages of a closed segment of this member."""
        self.get(segment_id, household, owner)
        row = self._conn.execute("SELECT messages FROM segments WHERE id = ?", (segment_id,)).fetchone()
        if row is None or row[0] is None:
            raise UserInputError(f"segment {segment_id} is still open: its messages are in the conversation")
        loaded: list[Message] = json.loads(row[0])
        return loaded


async def _summarize(messages: Sequence[Message], summarizer: Summarizer | None) -> str:
    digest = " / ".join(_plain(m) for m in messages)
    if summarizer is not None and messages:
        try:
            return await summarizer.fold("", messages)
        except ModelError as exc:
            log.warning("summarising a closed segment failed, keeping a digest: %s", exc)
    return digest[:DIGEST_CHARS] + ("…" if len(digest) > DIGEST_CHARS else "")


def _member(household: str | None, owner: str) -> tuple[str, tuple[str, ...]]:
    """The pair's own segments, in a form the ``segments_member`` index (household, owner, …) serves:
    ``household = ?``, or ``household IS NULL`` for a member of no household — the meaning of
    ``household IS NOT DISTINCT FROM ?``, which PostgreSQL answers by reading every segment of every
    member of that name (an index condition cannot take it; pg25f, docs/benchmarks.md)."""
    if household is None:
        return "household IS NULL AND owner = ?", (owner,)
    return "household = ? AND owner = ?", (household, owner)


def _in_order(segments: Iterable[Segment], ranked: Sequence[tuple[str, str]]) -> list[Segment]:
    """The ``segments`` whose (conversation, label) is ranked, in its order (newest first within a key)."""
    place = {key: n for n, key in enumerate(ranked)}
    found = [s for s in segments if (s.conversation, s.label) in place]
    return sorted(found, key=lambda s: place[(s.conversation, s.label)])  # stable


def _said_in(hit: Hit) -> tuple[str, str] | None:
    """The (conversation, segment label) a fact was said in, as its provenance keeps them."""
    conversation, label = hit.memory.provenance.get("conversation"), hit.memory.provenance.get("segment")
    return (conversation, label) if isinstance(conversation, str) and isinstance(label, str) else None


_COLUMNS = "id, conversation, household, owner, label, opened_at, closed_at, first_message, last_message, summary, untrusted"


def _row(row: Sequence[object]) -> Segment:
    return Segment(
        id=str(row[0]),
        conversation=str(row[1]),
        household=str(row[2]) if row[2] is not None else None,
        owner=str(row[3]),
        label=str(row[4]),
        opened_at=datetime.fromisoformat(str(row[5])),
        closed_at=datetime.fromisoformat(str(row[6])) if row[6] else None,
        first_message=int(str(row[7])),
        last_message=int(str(row[8])) if row[8] is not None else None,
        summary=str(row[9]) if row[9] is not None else None,
        untrusted=bool(row[10]),
    )
