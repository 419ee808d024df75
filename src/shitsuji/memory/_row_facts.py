"""What recall's bounds may know of a candidate before its row is read: the facts a row never changes.

``_rank.Bounds`` gives each candidate the most ``weigh`` can score it. Without the row it must
assume the largest of every factor: ``cross_script``'s × 3.5 on a vector match under an English
question (is the note Japanese?), the largest recency factor (how old is it?) and scope factor
(whose is it?). A row's content, the time it was said and its scope are never rewritten (importance
is: ``touch`` raises it, so it stays at its largest), so once recall has read a row they can be kept
by its id and the next question that meets it bounds it by its own factors: fewer rows can still
reach the first k, and fewer are read (issue 23 fl28).

A question naming a span (``_when.favour_span``) puts any candidate inside the span first, whatever its
score, so it read every row until issue 23 (rb30). The spans a row is about are kept too (``about``, as
its row stores them by the current rules, ``_about.RULES``; None when it stored none by them — such a row
is read again) and whether it kept a zone of its own: with the time it was said, they tell whether the
row is inside a span without reading it (``_when.span_known``), and one known outside is bounded as any.

Kept per engine (one store: an id names one row for good), the last ``ROW_FACTS_KEPT`` rows read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import NamedTuple

from ._records import Memory
from ._said import ZONE_KEY
from ._text import CJK

ROW_FACTS_KEPT = 16_384  # rows whose facts are kept (~2 MB: four references and two flags each)


class Fixed(NamedTuple):
    """A row's facts that no write changes: its content holds Japanese (``cross_script``), when it was
    said (recency), its scope (scope distance), and for a span question (``_when.span_known``) the spans
    its row stores (``Memory.about``: None when not stored by the current rules) and whether it kept a zone."""

    japanese: bool
    created_at: datetime
    scope: str
    about: tuple[tuple[int, int], ...] | None = None
    zoned: bool = False


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
        """Keep the facts of rows just read (forgotten ones too: their facts are as fixed); a row kept
        without its spans is kept again once its row stores them (``fill_about``)."""
        kept = self._kept
        new = [
            (
                m.id,
                Fixed(
                    CJK.search(m.content) is not None,
                    m.created_at,
                    m.scope,
                    m.about,
                    ZONE_KEY in m.provenance,
                ),
            )
            for m in memories
            if (old := kept.get(m.id)) is None or (old.about is None and m.about is not None)
        ]
        if not new:
            return
        with self._lock:
            kept.update(new)
            while len(kept) > self.size:
                del kept[next(iter(kept))]
