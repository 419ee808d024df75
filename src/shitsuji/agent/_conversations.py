"""Conversations: every message kept, so a chat can continue on any channel.

Each message is a row — role, speaker, channel, time, estimated tokens, the segment label
open when it was said — and nothing is ever thrown away; what is *sent* is chosen per
turn (window + summary). A row stores what was said, never text added for the model:
the decisions told to the model with a message are the row's ``told`` ids, rendered into
sentences only when the conversation is sent (``model_messages``). A row also records
whether it carries ``untrusted`` text (a web page, a forwarded message), and the
conversation whether its rolling summary was folded from any — so taint follows the
content for as long as the model can see it.

A turn reads only what it sends: the messages from the rolling summary's fold on (``since_fold``),
so a long-lived conversation (a LINE chat of years) costs each turn what its window holds, not
what was ever said; pages and archiving read the whole conversation.

A conversation belongs to the pair (household, owner).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import store as db
from ..context import message_tokens
from ..errors import NotFoundError
from ..llm import Block, Message
from ._notes import ModelNotes
from ._proposals import Decision, Proposal, Proposals
from ._schema import AGENT_SCHEMA


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    household: str | None
    owner: str
    channel: str
    messages: list[Message] = field(
        default_factory=list
    )  # as said, from ``first`` on: no notes for the model
    told_at: dict[int, list[str]] = field(default_factory=dict)  # index in messages → proposals told with it
    untrusted: list[bool] = field(default_factory=list)  # per message
    told: list[str] = field(default_factory=list)  # every proposal the model has heard about
    summary: str = ""  # rolling summary of messages[:folded_upto]
    folded_upto: int = 0
    summary_untrusted: bool = False
    keys: frozenset[str] = frozenset()  # idempotency keys stored: its messages' (and the asked one's)
    open_segment: str | None = None  # the label of the segment open when it was read
    first: int = 0  # the stored position (seq) of messages[0]: 0, or the fold for a turn's read

    @property
    def size(self) -> int:
        """How many messages the conversation holds in all (read or not)."""
        return self.first + len(self.messages)


_NAMED = "WHERE id = ? AND household IS NOT DISTINCT FROM ? AND owner = ?"  # the member's own, by id


def _members(household: str | None, owner: str, channel: str, c: str = "") -> tuple[str, tuple[str, ...]]:
    """The member's conversations in a channel, as ``conversations_pick`` finds them (``c``: the table's
    alias and a dot, if any). ``household = ?`` (or ``IS NULL``), not ``IS NOT DISTINCT FROM``, which no
    index serves: with it PostgreSQL scanned every conversation (43 ms at 180k conversations whose owners
    are called as people call them — "wife" in thousands of households)."""
    params: tuple[str, ...]
    if household is None:
        where, params = f"{c}owner = ? AND {c}household IS NULL AND {c}channel = ?", (owner, channel)
    else:
        where, params = f"{c}owner = ? AND {c}household = ? AND {c}channel = ?", (owner, household, channel)
    return where, params


def _newest_first(c: str = "") -> str:
    """``conversations_pick``'s own order after its three columns: read in it, nothing is sorted."""
    return f"ORDER BY {c}updated_at DESC, {c}rowid DESC"


def _latest(household: str | None, owner: str, channel: str) -> tuple[str, tuple[str, ...]]:
    """The member's most recently used conversation in a channel: one probe of ``conversations_pick``
    (once per turn, in the turn's claim)."""
    where, params = _members(household, owner, channel)
    return f"WHERE {where} {_newest_first()} LIMIT 1", params


class Conversations(db.Store):
    SCHEMA = AGENT_SCHEMA

    def start(
        self,
        household: str | None,
        owner: str,
        channel: str,
        *,
        conversation_id: str | None = None,
        also: Sequence[Write] = (),
    ) -> Conversation:
        """A new conversation (``conversation_id``: named by ``new_id`` beforehand); ``also``: other
        writes of its transaction (a turn's claim on it: born claimed, no other turn can come first)."""
        now = self.clock().isoformat()
        conversation = Conversation(conversation_id or self.new_id(), household, owner, channel)
        insert: Write = (
            "INSERT INTO conversations (id, owner, household, channel, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (conversation.id, owner, household, channel, now, now),
        )
        write_together(self._conn, [insert, *also])
        return conversation

    @staticmethod
    def new_id() -> str:
        return "c_" + secrets.token_hex(6)

    @staticmethod
    def pick(household: str | None, owner: str, channel: str, conversation_id: str | None = None) -> Write:
        """The id of the conversation ``get`` (``conversation_id``) or ``latest`` reads, as a query for
        another statement to pick it by (a turn's claim, taken before the conversation is read)."""
        if conversation_id:
            return f"SELECT id FROM conversations {_NAMED}", (conversation_id, household, owner)
        where, params = _latest(household, owner, channel)
        return f"SELECT id FROM conversations {where}", params

    def id_of(
        self, household: str | None, owner: str, channel: str, conversation_id: str | None
    ) -> str | None:
        """The id of the conversation ``pick`` selects, read alone (no messages): None when the member has
        none in this channel yet; a named one that is not the member's is ``NotFoundError``, as in ``get``."""
        row = self._conn.execute(*self.pick(household, owner, channel, conversation_id)).fetchone()
        if row is None and conversation_id:
            raise _not_found(conversation_id, owner)
        return None if row is None else str(row[0])

    def get(
        self,
        conversation_id: str,
        household: str | None,
        owner: str,
        *,
        since_fold: bool = False,
        key: str | None = None,
    ) -> Conversation:
        """The member's own conversation; anyone else's answers exactly like a missing one.
        ``since_fold``: only the messages a turn sends (from the summary's fold on, ``first``), and
        whether ``key`` was stored with any message (in ``keys``)."""
        found = self._read(
            _NAMED,
            (conversation_id, household, owner),
            since_fold=since_fold,
            key=key,
        )
        if found is None:
            raise _not_found(conversation_id, owner)
        return found

    def latest(
        self,
        household: str | None,
        owner: str,
        channel: str,
        *,
        since_fold: bool = False,
        key: str | None = None,
    ) -> Conversation | None:
        """The member's most recently used conversation in this channel (``since_fold``, ``key``: as ``get``)."""
        where, params = _latest(household, owner, channel)
        return self._read(where, params, since_fold=since_fold, key=key)

    def _read(
        self, where: str, params: tuple[str | None, ...], *, since_fold: bool, key: str | None
    ) -> Conversation | None:
        """The one conversation ``where`` picks, with its messages (all, or from the fold on: the primary
        key's range) and the label of its open segment, in one statement (one round trip)."""
        # the one key asked about is looked up in its unique index (words resent from before the fold);
        # it and the open segment are read once, for the conversation's row, not once per message
        rows = self._conn.execute(
            "SELECT c.id, c.household, c.owner, c.channel, c.told, c.summary, c.folded_upto, "
            "c.summary_untrusted, c.label, c.resent, m.seq, m.role, m.content, m.told, m.untrusted, "
            "m.message_key FROM (SELECT id, household, owner, channel, told, summary, folded_upto, "
            "summary_untrusted, (SELECT s.label FROM segments s WHERE s.conversation = conversations.id "
            "AND s.closed_at IS NULL LIMIT 1) AS label, (SELECT 1 FROM conversation_messages k "
            "WHERE k.conversation = conversations.id AND k.message_key = ?) AS resent "
            f"FROM conversations {where}) c "
            "LEFT JOIN conversation_messages m ON m.conversation = c.id"
            + (" AND m.seq >= c.folded_upto" if since_fold else "")
            + " ORDER BY m.seq",
            (key, *params),
        ).fetchall()
        if not rows:
            return None
        messages: list[Message] = []
        told_at: dict[int, list[str]] = {}
        untrusted: list[bool] = []
        keys: set[str] = {key} if key is not None and rows[0][9] else set()
        for *_, role, content, told, tainted, key_sent in rows:
            if role is None:  # no messages (after the fold) yet: the conversation's row alone
                continue
            if key_sent is not None:
                keys.add(key_sent)
            if told:
                told_at[len(messages)] = json.loads(told)
            messages.append({"role": role, "content": json.loads(content)})
            untrusted.append(bool(tainted))
        row = rows[0]
        return Conversation(
            row[0],
            row[1],
            row[2],
            row[3],
            messages,
            told_at,
            untrusted,
            json.loads(row[4]),
            row[5],
            row[6],
            bool(row[7]),
            frozenset(keys),
            row[8],
            (row[10] if messages else row[6]) if since_fold else 0,  # where the read started
        )

    def recent(
        self, household: str | None, owner: str, channel: str, *, limit: int = 10
    ) -> list[dict[str, object]]:
        """The member's latest conversations here that have messages, newest first: id, updated_at,
        messages (how many), and first (the first user message's content)."""
        cursor = self._conn.execute(*self.recent_query(household, owner, channel, limit))
        names = ["id", "updated_at", "messages", "first"]
        out = []
        for row in cursor.fetchall():
            item = dict(zip(names, row, strict=True))
            item["first"] = json.loads(str(item["first"])) if item["first"] is not None else None
            out.append(item)
        return out

    @staticmethod
    def recent_query(household: str | None, owner: str, channel: str, limit: int) -> tuple[str, db.Params]:
        """``recent``'s statement: the member's conversations walked in ``conversations_pick``'s order
        (``_members``), those without a message skipped, each with its count and first user message."""
        where, params = _members(household, owner, channel, "c.")
        sql = (
            "SELECT c.id, c.updated_at, "
            "(SELECT count(*) FROM conversation_messages m WHERE m.conversation = c.id) AS messages, "
            "(SELECT m.content FROM conversation_messages m WHERE m.conversation = c.id AND m.role = 'user' "
            " ORDER BY m.seq LIMIT 1) AS first "
            f"FROM conversations c WHERE {where} "
            "AND EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation = c.id) "
            f"{_newest_first('c.')} LIMIT ?"
        )
        return sql, (*params, limit)

    def rows(self, conversation_id: str) -> list[dict[str, object]]:
        """Every stored message with its metadata, in order."""
        cursor = self._conn.execute(
            "SELECT seq, role, speaker, channel, content, tokens, segment, created_at FROM conversation_messages "
            "WHERE conversation = ? ORDER BY seq",
            (conversation_id,),
        )
        names = ["seq", "role", "speaker", "channel", "content", "tokens", "segment", "created_at"]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

    def has_key(self, conversation_id: str, key: str) -> bool:
        """Whether a message sent with this idempotency key is already stored."""
        found = self._conn.execute(
            "SELECT 1 FROM conversation_messages WHERE conversation = ? AND message_key = ?",
            (conversation_id, key),
        ).fetchone()
        return found is not None

    def add_said(
        self,
        conversation: Conversation,
        text: str,
        *,
        told: Sequence[str] = (),
        untrusted: bool = False,
        segment: str | None = None,
        key: str | None = None,
    ) -> Conversation:
        """Store the person's words before the model is asked; a failed or interrupted turn loses nothing.

        The words join a trailing user message (the tool results of a turn that ended on a
        card); ``told`` names the decisions the model hears about with them.
        """
        block: Block = {"type": "text", "text": text}
        messages = list(conversation.messages)
        told_at = dict(conversation.told_at)
        flags = list(conversation.untrusted)
        if messages and messages[-1]["role"] == "user":
            content = messages[-1]["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
            index = len(messages) - 1
            messages[index] = {"role": "user", "content": [*blocks, block]}
            flags[index] = flags[index] or untrusted
        else:
            index = len(messages)
            messages.append({"role": "user", "content": text})
            flags.append(untrusted)
        if told:
            told_at[index] = [*told_at.get(index, []), *told]
        now = self.clock().isoformat()
        told_here = json.dumps(told_at[index]) if index in told_at else None
        all_told = [*conversation.told, *told]
        write_together(
            self._conn,
            [
                _put(
                    conversation,
                    conversation.first + index,
                    messages[index],
                    segment,
                    now,
                    told_here,
                    flags[index],
                    key,
                ),
                (
                    "UPDATE conversations SET told = ?, updated_at = ? WHERE id = ?",
                    (json.dumps(all_told), now, conversation.id),
                ),
            ],
        )
        return Conversation(
            conversation.id,
            conversation.household,
            conversation.owner,
            conversation.channel,
            messages,
            told_at,
            flags,
            all_told,
            conversation.summary,
            conversation.folded_upto,
            conversation.summary_untrusted,
            conversation.keys | {key} if key else conversation.keys,
            conversation.open_segment,
            conversation.first,
        )

    def add_turn(
        self,
        conversation: Conversation,
        messages: Sequence[Message],
        *,
        untrusted: bool,
        summary: str,
        folded_upto: int,
        summary_untrusted: bool,
        segment: str | None = None,
        also: Sequence[Write] = (),
    ) -> None:
        """Store the model's side of a turn after the person's words, and the context kept for the next;
        ``also``: other writes of the same transaction (the turn's claim let go). ``folded_upto`` counts
        from the conversation's start, whatever of it was read."""
        now = self.clock().isoformat()
        start = conversation.size
        writes = [
            _put(conversation, start + offset, message, segment, now, untrusted=untrusted)
            for offset, message in enumerate(messages)
        ]
        writes.append(
            (
                "UPDATE conversations SET summary = ?, folded_upto = ?, summary_untrusted = ?, updated_at = ? "
                "WHERE id = ?",
                (summary, folded_upto, int(summary_untrusted), now, conversation.id),
            )
        )
        write_together(self._conn, [*writes, *also])


Write = tuple[str, db.Params]


def _not_found(conversation_id: str, owner: str) -> NotFoundError:
    """A conversation that is not the member's answers exactly like a missing one."""
    return NotFoundError(
        f"no conversation {conversation_id!r} of {owner}: leave out --conversation to start one"
    )


def together(tx: db.Tx, dialect: str, writes: Sequence[Write]) -> None:
    """Writes of one transaction to different rows, sent as one statement on PostgreSQL (each but the
    last a data-modifying ``WITH`` part: one round trip) and one by one on SQLite (no round trips).
    The parts see the same snapshot: none may read what another writes."""
    if dialect != "postgresql" or len(writes) == 1:
        for sql, params in writes:
            tx.execute(sql, params)
        return
    tx.execute(*_one_statement(writes))


def _one_statement(writes: Sequence[Write]) -> Write:
    """``writes`` as one statement: each but the last a data-modifying ``WITH`` part (PostgreSQL)."""
    *parts, (last, last_params) = writes
    if not parts:
        return last, last_params
    head = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(parts))
    return f"WITH {head} {last}", [*(p for _, params in parts for p in params), *last_params]


def write_together(database: db.Database, writes: Sequence[Write]) -> None:
    """``together`` in a transaction of its own: on PostgreSQL the one statement is sent alone
    (``write_one``: one round trip, no BEGIN and COMMIT around it)."""
    if database.dialect == "postgresql" and writes:
        database.write_one(*_one_statement(writes))
        return
    with database.write() as tx:
        together(tx, database.dialect, writes)


def _put(
    conversation: Conversation,
    seq: int,
    message: Message,
    segment: str | None,
    now: str,
    told: str | None = None,
    untrusted: bool = False,
    key: str | None = None,
) -> Write:
    """One message row in one statement: the words with what was told with them, their taint (which
    only ever grows) and their idempotency key — rewritten in place when the row is there already
    (words joining a trailing user message)."""
    speaker = conversation.owner if message["role"] == "user" else "shitsuji"
    return (
        "INSERT INTO conversation_messages (conversation, seq, role, speaker, channel, content, tokens, "
        "segment, created_at, told, untrusted, message_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (conversation, seq) DO UPDATE SET content = excluded.content, tokens = excluded.tokens, "
        "told = coalesce(excluded.told, conversation_messages.told), "
        "untrusted = CASE WHEN excluded.untrusted <> 0 THEN 1 ELSE conversation_messages.untrusted END, "
        "message_key = coalesce(excluded.message_key, conversation_messages.message_key)",
        (
            conversation.id,
            seq,
            message["role"],
            speaker,
            conversation.channel,
            json.dumps(message["content"], ensure_ascii=False),
            message_tokens(message),
            segment,
            now,
            told,
            int(untrusted),
            key,
        ),
    )


def untold_decisions(
    conversation: Conversation, proposals: Proposals, *, cards: Sequence[Proposal] | None = None
) -> list[Decision]:
    """Decisions on this conversation's proposals that the model has not heard about yet.
    ``cards``: the conversation's proposals as already read this turn (else they are read here)."""
    out = []
    for p in proposals.list(conversation=conversation.id) if cards is None else cards:
        if p.id not in conversation.told and p.status in ("approved", "rejected", "failed"):
            out.append(Decision(p, p.status == "approved", p.result or p.status))
    return out


def model_messages(
    conversation: Conversation,
    proposals: Proposals,
    notes: ModelNotes,
    *,
    cards: Sequence[Proposal] = (),
) -> list[Message]:
    """The conversation as the model reads it: each message with the decision notes told with it.
    ``cards``: the conversation's proposals as already read this turn (one read, not one per note)."""
    out = list(conversation.messages)
    known = {p.id: p for p in cards}
    for index, ids in conversation.told_at.items():
        sentences: list[Block] = []
        for proposal_id in ids:
            p = known.get(proposal_id) or proposals.get(proposal_id)
            decision = Decision(p, p.status == "approved", p.result or p.status)
            sentences.append({"type": "text", "text": notes.decision(decision)})
        out[index] = {"role": out[index]["role"], "content": _before_words(out[index]["content"], sentences)}
    return out


def _before_words(content: str | list[Block], notes: list[Block]) -> list[Block]:
    """``notes`` placed after any tool results and before the person's words."""
    blocks: list[Block] = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    at = next((i for i, b in enumerate(blocks) if b.get("type") != "tool_result"), len(blocks))
    return [*blocks[:at], *notes, *blocks[at:]]
