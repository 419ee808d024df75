"""Ranking recall's candidates: the one function between the searches and the answer.

``MemoryEngine.recall`` searches (keyword and vector lists, the rows and vectors they name)
and then ranks; ``scripts/recall_folds.py`` collects the same lists once and ranks them again
for each rule it scores. Both call ``rank_candidates``, so a rule measured by the script is
the rule the product ships — the script had its own copy of these steps and had already
drifted (it lacked ``cross_script``).

The steps, in order: per-memory scales of a signal (``keyword_coverage`` for a Japanese
question, ``cross_script`` for Japanese notes under an English one), ``fuse``, ``weigh``
(importance, recency — more when the question asks about the present — scope distance, the
newer of two versions first), then ``favour_span`` when the question names a span of the
asker's calendar.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ._kana import fold_kana
from ._recall import RecallWeights, asks_for_now, cross_script, fuse, keyword_coverage, weigh
from ._records import Hit, Memory
from ._said import said_terms, said_zone
from ._slots import Match
from ._text import CJK, terms
from ._when import asked_span, favour_span

CONTEXT_TERMS_CHARS = 300  # context tail whose words are indexed with the memory
HELD_CACHE = 4096  # memories whose terms ``held_terms`` keeps (a few MB)


@dataclass(frozen=True, slots=True)
class Candidates:
    """What recall found for one question, before ranking.

    ``ranked``: signal name ("keyword", "vector") -> its matches, best first; ``memories`` and
    ``vectors`` the rows and embeddings of those matches (by id); ``chain`` the asker's scope
    and its ancestors, nearest first; ``asked`` the question's search terms.
    """

    text: str
    asked: list[str]
    ranked: dict[str, list[Match]]
    memories: dict[str, Memory]
    vectors: dict[str, npt.NDArray[np.float32]]
    chain: list[str]


def held_terms(memory: Memory) -> frozenset[str]:
    """The distinct terms a memory is indexed under (as ``index_terms`` makes them, all chunks), kana
    folded to katakana as the question's are for ``keyword_coverage`` (``_kana``)."""
    tail = memory.context[-CONTEXT_TERMS_CHARS:] if memory.context else None
    return _held(memory.content, tail, memory.keys, memory.created_at, said_zone(memory.provenance))


@lru_cache(maxsize=HELD_CACHE)
def _held(
    content: str, context_tail: str | None, keys: tuple[str, ...], said: datetime, zone: tzinfo
) -> frozenset[str]:
    # a function of the text alone, kept for the memories recall meets again: splitting ~50
    # candidates' text per Japanese question was a third of ranking at 100k (issue 23 fl23)
    held = set(terms(content))
    if context_tail:
        held.update(terms(context_tail))
    if keys:
        held.update(terms("\n".join(keys)))
    held.update(said_terms(said, zone))
    return fold_kana(held)


def rank_candidates(c: Candidates, now: datetime, w: RecallWeights, zone: tzinfo = UTC) -> list[Hit]:
    """Every visible candidate as a ``Hit``, best first, as recall answers (take the first k)."""
    japanese = CJK.search(c.text) is not None
    keyword, vector = c.ranked.get("keyword"), c.ranked.get("vector")
    scale: dict[str, dict[str, float]] = {}
    if japanese and w.keyword_coverage and keyword:
        held = {
            m.memory_id: held_terms(c.memories[m.memory_id]) for m in keyword if m.memory_id in c.memories
        }
        scale["keyword"] = keyword_coverage(list(fold_kana(c.asked)), held)
    # Japanese notes for an English question: the vector sees them, the keywords cannot (only when
    # keywords were searched: by meaning alone, as the prompt hook recalls, there is nothing to offset)
    if w.cross_script and not japanese and vector and keyword:
        scale["vector"] = cross_script(vector, c.memories, w)
    weights = {"keyword": w.keyword_weight, "vector": w.vector_weight_cjk if japanese else w.vector_weight}
    fused = fuse(c.ranked, weights, scale, standout=w.standout)
    distances = {s: d for d, s in enumerate(c.chain)}
    hits = weigh(fused, c.memories, distances, now, w, asks_for_now=asks_for_now(c.text), vectors=c.vectors)
    if (span := asked_span(c.text, now, zone)) is not None:
        hits = favour_span(hits, span, w, zone)
    return hits
