"""Conversation history between turns, so a chat can continue (``chat --conversation ID``).

Each conversation keeps its message list in the Messages shape and which proposal
decisions the model has already been told about; a decision made since the last turn
(``proposals approve`` from another command, a card tapped later) is told on the next
turn. The full conversation store — per-message rows, rolling summary, segments — is
the context-management layer's job; this keeps just what the loop needs.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .. import store as db
from ..errors import NotFoundError
from ..llm import Message
from ._proposals import Decision, Proposals


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
        self._conn = db.connect(self.path)
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
            "SELECT id, owner, household, channel, messages, told, summary, folded_upto FROM conversations "
            "WHERE id = ? AND owner = ?",
            (conversation_id, user),
        ).fetchone()
        if row is None:
            raise NotFoundError(
                f"no conversation {conversation_id!r} of {user}: leave out --conversation to start one"
            )
        return Conversation(
            row[0], row[1], row[2], row[3], json.loads(row[4]), json.loads(row[5]), row[6], row[7]
        )

    def save(
        self,
        conversation: Conversation,
        messages: Sequence[Message],
        told: Sequence[str],
        *,
        summary: str = "",
        folded_upto: int = 0,
    ) -> None:
        with db.write(self._conn, self.path) as conn:
            conn.execute(
                "UPDATE conversations SET messages = ?, told = ?, summary = ?, folded_upto = ?, updated_at = ? "
                "WHERE id = ?",
                (
                    json.dumps(list(messages), ensure_ascii=False),
                    json.dumps(list(told)),
                    summary,
                    folded_upto,
                    self.clock().isoformat(),
                    conversation.id,
                ),
            )


def untold_decisions(conversation: Conversation, proposals: Proposals) -> list[Decision]:
    """Decisions on this conversation's proposals that the model has not heard about yet."""
    out = []
    for p in proposals.list(conversation=conversation.id):
        if p.id not in conversation.told and p.status in ("approved", "rejected", "failed"):
            out.append(Decision(p, p.status == "approved", p.result or p.status))
    return out
