"""Conversations: every message kept, so a chat can continue (``chat --conversation ID``).

Each message is a row — role, speaker, channel, time, estimated tokens, the segment label
open when it was said — and nothing is ever thrown away; what is *sent* is chosen per
turn (window + summary). A conversation also remembers which proposal decisions the model
has been told about: one made since the last turn (``proposals approve`` from another
command, a card tapped later) is told on the next turn.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .. import store as db
from ..context import message_tokens
from ..errors import NotFoundError
from ..llm import Message
from ._proposals import Decision, Proposals
from ._schema import AGENT_SCHEMA


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    owner: str
    household: str | None
    channel: str
    messages: list[Message]
    told: list[str]
    summary: str = ""  # rolling summary of messages[:folded_upto]
    folded_upto: int = 0


class Conversations:
    def __init__(
        self, path: str | Path, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.path = str(path)
        self._conn = db.connect(self.path, AGENT_SCHEMA)
        self.clock = clock

    def close(self) -> None:
        self._conn.close()

    def start(self, owner: str, household: str | None, channel: str) -> Conversation:
        now = self.clock().isoformat()
        conversation = Conversation("c_" + secrets.token_hex(6), owner, household, channel, [], [])
        with db.write(self._conn, self.path) as conn:
            conn.execute(
                "INSERT INTO conversations (id, owner, household, channel, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (conversation.id, owner, household, channel, now, now),
            )
        return conversation

    def get(self, conversation_id: str, user: str) -> Conversation:
        """The user's own conversation; anyone else's answers exactly like a missing one."""
        row = self._conn.execute(
            "SELECT id, owner, household, channel, told, summary, folded_upto FROM conversations "
            "WHERE id = ? AND owner = ?",
            (conversation_id, user),
        ).fetchone()
        if row is None:
            raise NotFoundError(
                f"no conversation {conversation_id!r} of {user}: leave out --conversation to start one"
            )
        messages = [
            {"role": role, "content": json.loads(content)}
            for role, content in self._conn.execute(
                "SELECT role, content FROM conversation_messages WHERE conversation = ? ORDER BY seq",
                (row[0],),
            )
        ]
        return Conversation(row[0], row[1], row[2], row[3], messages, json.loads(row[4]), row[5], row[6])

    def latest(self, owner: str, household: str | None, channel: str) -> Conversation | None:
        """The owner's most recently used conversation in this household and channel."""
        row = self._conn.execute(
            "SELECT id FROM conversations WHERE owner = ? AND household IS ? AND channel = ? "
            "ORDER BY updated_at DESC, rowid DESC LIMIT 1",
            (owner, household, channel),
        ).fetchone()
        return self.get(row[0], owner) if row else None

    def recent(
        self, owner: str, household: str | None, channel: str, *, limit: int = 10
    ) -> list[dict[str, object]]:
        """The owner's latest conversations here that have messages, newest first: id, updated_at,
        messages (how many), and first (the first user message's content)."""
        cursor = self._conn.execute(
            "SELECT c.id, c.updated_at, "
            "(SELECT count(*) FROM conversation_messages m WHERE m.conversation = c.id) AS messages, "
            "(SELECT m.content FROM conversation_messages m WHERE m.conversation = c.id AND m.role = 'user' "
            " ORDER BY m.seq LIMIT 1) AS first "
            "FROM conversations c WHERE c.owner = ? AND c.household IS ? AND c.channel = ? "
            "AND EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation = c.id) "
            "ORDER BY c.updated_at DESC, c.rowid DESC LIMIT ?",
            (owner, household, channel, limit),
        )
        names = [d[0] for d in cursor.description]
        out = []
        for row in cursor.fetchall():
            item = dict(zip(names, row, strict=True))
            item["first"] = json.loads(str(item["first"])) if item["first"] is not None else None
            out.append(item)
        return out

    def rows(self, conversation_id: str) -> list[dict[str, object]]:
        """Every stored message with its metadata, in order."""
        cursor = self._conn.execute(
            "SELECT seq, role, speaker, channel, content, tokens, segment, created_at FROM conversation_messages "
            "WHERE conversation = ? ORDER BY seq",
            (conversation_id,),
        )
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

    def save(
        self,
        conversation: Conversation,
        messages: Sequence[Message],
        told: Sequence[str],
        *,
        summary: str = "",
        folded_upto: int = 0,
        segment: str | None = None,
    ) -> None:
        """Store new messages (the last stored one is rewritten if the turn merged text into it)."""
        now = self.clock().isoformat()
        with db.write(self._conn, self.path) as conn:
            stored = conn.execute(
                "SELECT count(*) FROM conversation_messages WHERE conversation = ?", (conversation.id,)
            ).fetchone()[0]
            for seq in range(max(stored - 1, 0), len(messages)):
                message = messages[seq]
                content = json.dumps(message["content"], ensure_ascii=False)
                speaker = conversation.owner if message["role"] == "user" else "shitsuji"
                conn.execute(
                    "INSERT INTO conversation_messages "
                    "(conversation, seq, role, speaker, channel, content, tokens, segment, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (conversation, seq) DO UPDATE SET content = excluded.content, "
                    "tokens = excluded.tokens",
                    (
                        conversation.id,
                        seq,
                        message["role"],
                        speaker,
                        conversation.channel,
                        content,
                        message_tokens(message),
                        segment,
                        now,
                    ),
                )
            conn.execute(
                "UPDATE conversations SET told = ?, summary = ?, folded_upto = ?, updated_at = ? WHERE id = ?",
                (json.dumps(list(told)), summary, folded_upto, now, conversation.id),
            )


def untold_decisions(conversation: Conversation, proposals: Proposals) -> list[Decision]:
    """Decisions on this conversation's proposals that the model has not heard about yet."""
    out = []
    for p in proposals.list(conversation=conversation.id):
        if p.id not in conversation.told and p.status in ("approved", "rejected", "failed"):
            out.append(Decision(p, p.status == "approved", p.result or p.status))
    return out
