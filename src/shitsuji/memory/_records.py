"""The memory record: one fact per row, and what recall hands back.

The database row is the truth; these frozen dataclasses are how rows travel through
the code. ``to_json`` gives the stable shape the CLI's ``--json`` and ``export`` print.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from ..errors import UserInputError
from ._text import chunks

SURROGATE: Final = re.compile(r"[\ud800-\udfff]")

#: Built-in categories. The set is open: any lowercase word of letters, digits, ``_`` or ``-`` is accepted.
CATEGORIES: Final = ("profile", "preference", "media", "event", "misc")
Source = Literal["remembered", "extracted", "imported"]
SOURCES: Final[tuple[Source, ...]] = ("remembered", "extracted", "imported")
MAX_CONTENT_CHARS: Final = 20_000
#: Search keys a fact may carry (``check_keys``): a few words or short phrases, never a second text.
MAX_KEYS: Final = 12
MAX_KEY_CHARS: Final = 40
#: What a tool tells the model its ``keys`` argument is for (the household and MCP ``remember``). Short:
#: the butler sends its tools with every turn, and a turn's input is held to a budget
#: (``household._bench.prompt_tokens_benchmark``: the longer text with an example cost 114 tokens, 39 fit).
KEYS_DESCRIPTION: Final = "Search words in Japanese AND English: translation, synonyms, category (max 12)."


@dataclass(frozen=True, slots=True)
class Memory:
    """One remembered fact."""

    id: str
    scope: str
    content: str
    category: str
    importance: float
    source: Source
    provenance: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    content_hash: str
    valid_until: datetime | None = None
    deleted_at: datetime | None = None
    embedding_model: str | None = None
    context: str | None = None
    # search keys (synonyms, the category, a translation) found with the fact but never shown as it,
    # and who gave them ("model": the agent's ``remember`` call); see ``check_keys``
    keys: tuple[str, ...] = ()
    keys_by: str | None = None
    # the dates its text is about, as stored with the row ([start, end) in epoch seconds, ``_about``);
    # None for a row stored before they were (or not read from the store): recall reads its text.
    # Derived from the fields above, so not part of equality.
    about: tuple[tuple[int, int], ...] | None = field(default=None, compare=False)

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scope": self.scope,
            "content": self.content,
            "category": self.category,
            "importance": self.importance,
            "source": self.source,
            "provenance": self.provenance,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
            "deleted_at": self.deleted_at.isoformat() if self.deleted_at else None,
            "content_hash": self.content_hash,
            "embedding_model": self.embedding_model,
            "context": self.context,
            "keys": list(self.keys),
            "keys_by": self.keys_by,
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """A recalled memory with its fused score (higher is better) and the chunk that matched."""

    memory: Memory
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    chunk: int = 0

    @property
    def excerpt(self) -> str:
        """The matched chunk of a long memory; the whole content of a short one."""
        pieces = chunks(self.memory.content)
        return pieces[min(self.chunk, len(pieces) - 1)]

    def to_json(self) -> dict[str, Any]:
        m = self.memory
        return {
            "id": m.id,
            "content": m.content,
            "scope": m.scope,
            "category": m.category,
            "importance": m.importance,
            "created_at": m.created_at.isoformat(),
            "score": round(self.score, 6),
            "chunk": self.excerpt,
            "chunk_index": self.chunk,
        }


@dataclass(frozen=True, slots=True)
class RememberResult:
    """What ``remember`` did: stored a new row, or found an existing duplicate."""

    memory: Memory
    duplicate: bool
    similarity: float | None = None
    superseded: tuple[str, ...] = ()  # ids of older facts this one replaced (kept, restorable)

    def to_json(self) -> dict[str, Any]:
        out = self.memory.to_json()
        out["duplicate"] = self.duplicate
        if self.similarity is not None:
            out["similarity"] = round(self.similarity, 4)
        if self.superseded:
            out["superseded"] = list(self.superseded)
        return out


def check_content(text: str) -> str:
    """Strip and validate memory text; raise a clear error for empty or oversized input."""
    content = text.strip()
    if not content:
        raise UserInputError("memory text is empty: give the fact to remember")
    if SURROGATE.search(content):
        raise UserInputError(
            "memory text holds half a character (a lone surrogate, e.g. from bytes that are not UTF-8): "
            "fix the text's encoding and try again"
        )
    if len(content) > MAX_CONTENT_CHARS:
        raise UserInputError(
            f"memory text is {len(content):,} characters; the limit is {MAX_CONTENT_CHARS:,} — split it into facts"
        )
    return content


def check_category(category: str) -> str:
    cat = category.strip().lower()
    if not cat or len(cat) > 40 or not all(c.isalnum() or c in "_-" for c in cat) or not cat.isascii():
        raise UserInputError(
            f"category {category!r} is not valid: use one of {', '.join(CATEGORIES)} or a short ASCII word"
        )
    return cat


def check_importance(importance: float) -> float:
    if not (isinstance(importance, int | float) and math.isfinite(importance) and 0.0 <= importance <= 1.0):
        raise UserInputError(f"importance must be a number from 0 to 1, got {importance!r}")
    return float(importance)


def check_source(source: str) -> Source:
    for s in SOURCES:
        if s == source:
            return s
    raise UserInputError(f"source {source!r} is not valid: use one of {', '.join(SOURCES)}")


def merged_keys(stored: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """A stored fact's keys with a repeat's new ones (both checked, ``check_keys``): the stored ones
    first, then each new one not among them, until ``MAX_KEYS``."""
    out = list(stored)
    for key in new:
        if len(out) >= MAX_KEYS:
            break
        if key not in out:
            out.append(key)
    return tuple(out)


def check_keys(keys: object) -> tuple[str, ...]:
    """Search keys as stored: each stripped, white space collapsed, duplicates dropped, order kept.

    A model fills them, so a wrong shape gets an error that says what to send (the fact is not
    written, and the caller may retry with the keys mended or left out).
    """
    if keys is None:
        return ()
    if isinstance(keys, str) or not isinstance(keys, list | tuple):
        raise UserInputError(
            f'keys must be a list of short strings, e.g. ["herb", "ハーブ"], got {type(keys).__name__}'
        )
    if len(keys) > MAX_KEYS:
        raise UserInputError(f"{len(keys)} keys given; the limit is {MAX_KEYS}: keep the most useful ones")
    out: list[str] = []
    for i, key in enumerate(keys):
        if not isinstance(key, str):
            raise UserInputError(f"keys[{i}] must be a string, got {type(key).__name__}")
        flat = " ".join(key.split())
        if not flat:
            raise UserInputError(f"keys[{i}] is empty: leave it out")
        if len(flat) > MAX_KEY_CHARS:
            raise UserInputError(
                f"keys[{i}] is {len(flat)} characters; the limit is {MAX_KEY_CHARS}: a key is a word or a short phrase"
            )
        if SURROGATE.search(flat):
            raise UserInputError(f"keys[{i}] holds half a character (a lone surrogate): fix its encoding")
        if flat not in out:
            out.append(flat)
    return tuple(out)
