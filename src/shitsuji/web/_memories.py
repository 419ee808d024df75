"""The memory browser: what a member may see of the butler's memory, and their edits to it.

A member sees two scopes only: their own (``household/H/user/U``) and the household's
shared one (``household/H``). Any other memory — the spouse's, another household's —
answers exactly like a missing one.
"""

from __future__ import annotations

import json
from datetime import tzinfo
from typing import Any, Literal

from ..agent import Conversations
from ..errors import NotFoundError
from ..household import HouseholdStore
from ..memory import Memory, MemoryEngine
from ._member import Member, message_text

Which = Literal["own", "shared", "all"]


def memory_json(memory: Memory, shared_scope: str, score: float | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": memory.id,
        "content": memory.content,
        "category": memory.category,
        "importance": memory.importance,
        "source": memory.source,
        "scope": memory.scope,
        "shared": memory.scope == shared_scope,
        "created_at": memory.created_at.isoformat(),
        "updated_at": memory.updated_at.isoformat(),
        "deleted": memory.deleted_at is not None,
    }
    if score is not None:
        data["score"] = score
    return data


class MemoryBrowser:
    def __init__(self, memory: MemoryEngine, store: HouseholdStore, conversations: Conversations) -> None:
        self.memory = memory
        self.store = store
        self.conversations = conversations

    def scopes(self, member: Member) -> tuple[str, str]:
        """(own scope, shared household scope): the only memory scopes a member sees."""
        return member.viewer.scopes

    def get(self, member: Member, memory_id: str) -> Memory:
        """A memory the member may see (an id prefix is resolved among those alone), else "not found"."""
        try:
            return self.memory.get(memory_id, visible_scopes=self.scopes(member))
        except NotFoundError:
            raise NotFoundError(f"no memory {memory_id!r}") from None

    def browse(
        self,
        member: Member,
        *,
        query: str | None = None,
        category: str | None = None,
        scope: Which = "all",
        deleted: bool = False,
        limit: int = 200,
        zone: tzinfo | None = None,
    ) -> list[dict[str, Any]]:
        """Visible memories as JSON, newest first; with ``query``, the recall ranking (same hybrid search).
        ``zone``: the household's, as the caller read it (None: read here)."""
        own, shared = self.scopes(member)
        wanted = {"own": (own,), "shared": (shared,), "all": (own, shared)}[scope]
        if query and query.strip() and not deleted:
            if zone is None:  # "last month" is a span of their calendar
                zone = self.store.zone(member.household)
            hits = self.memory.recall(query, own, k=max(limit, 1), zone=zone)
            return [
                memory_json(h.memory, shared, round(h.score, 4))
                for h in hits
                if h.memory.scope in wanted and (category is None or h.memory.category == category)
            ]
        found: list[Memory] = []
        for where in wanted:
            found += [
                m
                for m in self.memory.list_memories(where, deleted=deleted)
                if m.scope == where and (category is None or m.category == category)
            ]
        found.sort(key=lambda m: m.updated_at, reverse=True)
        return [memory_json(m, shared) for m in found[:limit]]

    def view(self, member: Member, memory: Memory) -> dict[str, Any]:
        """One memory as JSON, marked shared when it is the household's."""
        return memory_json(memory, self.scopes(member)[1])

    def categories(self, member: Member) -> list[str]:
        own, shared = self.scopes(member)
        names = {
            m.category
            for where in (own, shared)
            for m in self.memory.list_memories(where)
            if m.scope == where
        }
        return sorted(names)

    def provenance(self, member: Member, memory: Memory) -> dict[str, Any]:
        """Where a memory came from, with the words of the messages it was taken from (if the member's)."""
        origin = dict(memory.provenance)
        quoted: list[dict[str, Any]] = []
        conversation = origin.get("conversation")
        ids = origin.get("message_ids") or []
        if not isinstance(conversation, str):
            return {"provenance": origin, "messages": quoted}
        try:
            self.conversations.get(conversation, member.household, member.user)
        except NotFoundError:
            return {"provenance": origin, "messages": quoted}
        rows = {int(str(r["seq"])): r for r in self.conversations.rows(conversation)}
        for ident in ids if isinstance(ids, list) else []:
            _, _, seq = str(ident).rpartition(":")
            row = rows.get(int(seq)) if seq.isdigit() else None
            if row is not None:
                quoted.append(
                    {
                        "id": ident,
                        "role": row["role"],
                        "at": row["created_at"],
                        "text": message_text(json.loads(str(row["content"]))),
                    }
                )
        return {"provenance": origin, "messages": quoted}

    def edit(
        self,
        member: Member,
        memory_id: str,
        *,
        content: str | None,
        category: str | None,
        importance: float | None,
    ) -> Memory:
        old = self.get(member, memory_id)
        return self.memory.edit(
            old.id, content=content, category=category, importance=importance, by=member.user
        )

    def forget(self, member: Member, memory_id: str) -> Memory:
        return self.memory.forget(self.get(member, memory_id).id, by=member.user)

    def restore(self, member: Member, memory_id: str) -> Memory:
        return self.memory.restore(self.get(member, memory_id).id, by=member.user)
