"""What recall's bounds may know of a candidate before its row is read: the facts a row never changes.

``_rank.Bounds`` gives each candidate the most ``weigh`` can score it. Without the row it must
assume the largest of every factor: ``cross_script``'s × 3.5 on a vector match under an English
question (is the note Japanese?), the largest recency factor (how old is it?) and scope factor
(whose is it?). A row's content, the time it was said and its scope are never rewritten (importance
is: ``touch`` raises it, so it stays at its largest), so once recall has read a row they can be kept
by its id and the next question that meets it bounds it by its own factors: fewer rows can still
reach the first k, and fewer are read (issue 23 fl28).

Kept per engine (one store: an id names one row for good), the last ``ROW_FACTS_KEPT`` rows read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import NamedTuple

from ._records import Memory
from ._text import CJK

ROW_FACTS_KEPT = 16_384  # rows whose facts are kept (~1.5 MB: three references and a flag each)


class Fixed(NamedTuple):
    """A row's facts that no write changes: its content holds Japanese (``cross_script``), when it was
    said (recency), its scope (scope distance)."""

    japanese: bool
    created_at: datetime
    scope: str


class RowFacts:
    """``Fixed`` by memory id, for the last ``size`` rows learnt (thread-safe; oldest learnt first out)."""

    def __init__(self, size: int = ROW_FACTS_KEPT) -> None:
        self.size = size
        self._kept: dict[str, Fixed] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, memory_id: str) -> Fixed | None:
        return self._kept.get(memory_id)

    def kept(self) -> Mapping[str, Fixed]:
        """The facts kept, by id, to look up many (read only; a lookup is safe beside ``learn``)."""
        return self._kept

    def learn(self, memories: Iterable[Memory]) -> None:
        """Keep the facts of rows just read (forgotten ones too: their facts are as fixed)."""
        new = [
            (m.id, Fixed(CJK.search(m.content) is not None, m.created_at, m.scope))
            for m in memories
            if m.id not in self._kept
        ]
        if not new:
            return
        with self._lock:
            kept = self._kept
            kept.update(new)
            while len(kept) > self.size:
                del kept[next(iter(kept))]
