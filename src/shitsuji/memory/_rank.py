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

``top_hits`` is what recall asks for: the first ``k`` of that ranking, with the rows read only of the
candidates that can be among them. Every step before ``favour_span`` can raise a candidate's score
by a bounded amount at most, known from the two lists alone, so a candidate whose bound falls below
the k-th score already found is never read (at 100k memories, reading ~120 rows was a third of what
recall spent beyond its exact-search floor).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ._kana import fold_kana
from ._recall import (
    RecallWeights,
    asks_for_now,
    cross_script,
    fuse,
    keyword_coverage,
    levels,
    scope_factor,
    signal_weight,
    weigh,
)
from ._records import Hit, Memory
from ._row_facts import RowFacts
from ._said import said_terms, said_zone
from ._several import several_weights
from ._slots import Match
from ._text import CJK, terms
from ._when import Span, favour_span, in_span, span_known, span_named, span_words, without_words

_HIRAGANA = re.compile(r"[ぁ-ゖー]+")
CONTEXT_TERMS_CHARS = 300  # context tail whose words are indexed with the memory
HELD_CACHE = 4096  # memories whose terms ``held_terms`` keeps (a few MB)

#: relative room for float rounding in ``Bounds.most`` (its steps differ from the exact score's)
MARGIN = 1e-9

#: ``top_hits``' reader: the rows of these ids and the first chunk's vector of each (``memories_with_vectors``)
Read = Callable[[list[str]], tuple[dict[str, Memory], dict[str, npt.NDArray[np.float32]]]]


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


@dataclass(frozen=True, slots=True)
class Question:
    """What ranking reads from the question's text, found once a question and passed down: ``top_hits``
    bounds the candidates (``Bounds.of``) and ranks them (``_ranked``), perhaps several times, all from
    this one, so they cannot disagree.

    ``weights``: the weights this question is ranked with; ``span``: the span of the asker's calendar it
    names (``asked_span``: ~0.2 ms a question), and ``rest`` its text without the words naming it.
    """

    text: str
    weights: RecallWeights
    span: Span | None
    rest: str

    @staticmethod
    def of(text: str, now: datetime, w: RecallWeights, zone: tzinfo = UTC) -> Question:
        # the weights adapted to what the question asks for: each such rule applies here, and only here
        weights = several_weights(text, w)
        found = span_words(text)
        if found is None:
            return Question(text, weights, None, text)
        return Question(text, weights, span_named(found, now, zone), without_words(found))


def rank_candidates(c: Candidates, now: datetime, w: RecallWeights, zone: tzinfo = UTC) -> list[Hit]:
    """Every visible candidate as a ``Hit``, best first, as recall answers (take the first k)."""
    return _ranked(c, now, Question.of(c.text, now, w, zone), zone)


def _ranked(c: Candidates, now: datetime, q: Question, zone: tzinfo) -> list[Hit]:
    """``rank_candidates`` with what it reads from the question already found (``q``, of ``c.text``)."""
    return _spanned(_weighed(c, now, q), q, zone)


def _weighed(c: Candidates, now: datetime, q: Question) -> list[Hit]:
    """``_ranked`` before ``favour_span``: fused and weighed."""
    w = q.weights
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
    fused = fuse(c.ranked, _signal_weights(japanese, w), scale, standout=w.standout, only=c.memories)
    distances = {s: d for d, s in enumerate(c.chain)}
    return weigh(fused, c.memories, distances, now, w, asks_for_now=asks_for_now(c.text), vectors=c.vectors)


def _spanned(hits: list[Hit], q: Question, zone: tzinfo) -> list[Hit]:
    """``favour_span`` of the weighed ``hits`` when ``q`` names a span."""
    if q.span is None:
        return hits
    return favour_span(hits, q.span, q.weights, zone, holds_question_words(q.rest))


def holds_question_words(rest: str) -> Callable[[Hit], bool]:
    """Whether a hit holds one of the question's words, its time words aside (``rest``, the question
    without them: ``favour_span``): the terms ``held_terms`` finds, but no hiragana-only bigram (った,
    のは: endings and particles)."""
    wanted = fold_kana(t for t in terms(rest) if not _HIRAGANA.fullmatch(t))
    return lambda hit: not wanted.isdisjoint(held_terms(hit.memory))


def _signal_weights(japanese: bool, w: RecallWeights) -> dict[str, float]:
    return {"keyword": w.keyword_weight, "vector": w.vector_weight_cjk if japanese else w.vector_weight}


def top_hits(
    text: str,
    asked: list[str],
    ranked: dict[str, list[Match]],
    chain: list[str],
    read: Read,
    now: datetime,
    w: RecallWeights,
    k: int,
    zone: tzinfo = UTC,
    facts: RowFacts | None = None,
) -> list[Hit]:
    """``rank_candidates(...)[:k]`` over every candidate of ``ranked``, reading (``read``) only the rows of
    candidates that can be among the first ``k``; ``facts``, the fixed facts of rows read before, bound
    those candidates by their own factors (``Bounds.of``), and learn the rows read here.

    Candidates are read best bound first (``Bounds``): first those whose bound reaches what the
    ``window``-th best will score if its row holds, then, while an unread candidate's bound
    reaches the ``window``-th score found so far, those too. The first ``window`` hits (``k``, or
    the ``versions_window`` that ``prefer_newer`` reorders, if larger) are then the whole
    ranking's, in its order — every unread candidate scores below all of them — so the first
    ``k`` are the same list, not an approximation.

    A question naming a span (``favour_span`` puts any hit inside it first, whatever its score) reads
    every candidate that may be inside the span — all of them, but for the rows whose facts say they
    are outside it (``_row_facts``: when said, the spans the row stores) — and of those outside, while
    one's bound reaches a score the first ``k`` rest on (``_span_cut``), those too.
    """
    ids = list(dict.fromkeys(m.memory_id for matches in ranked.values() for m in matches))
    q = Question.of(text, now, w, zone)
    found = Bounds.of(q, ranked, chain, facts, now)
    spanned = q.span is not None and q.weights.favour_span
    outside: set[str] = set()  # candidates known to be outside the span (unread, bounded as any)
    if found is not None and spanned and facts is not None and q.span is not None:
        kept, known = facts.kept(), span_known(q.span, zone)
        for memory_id in ids:
            fixed = kept.get(memory_id)
            if fixed is not None and known(fixed.created_at, fixed.about, fixed.zoned) is False:
                outside.add(memory_id)
    if found is None or (spanned and not outside):
        memories, vectors = read(ids)
        if facts is not None:
            facts.learn(memories.values())
        return _ranked(Candidates(text, asked, ranked, memories, vectors, chain), now, q, zone)[:k]
    window = max(k, q.weights.versions_window)
    most = found.most
    order = sorted(ids, key=lambda i: (i not in outside if spanned else False, most[i]), reverse=True)
    memories, vectors = {}, {}
    hits: list[Hit] = []
    cut = found.first_cut(window)
    done = 0  # ``order[:done]`` are read
    while done < len(order):
        end = done
        while end < len(order) and (most[order[end]] >= cut or (spanned and order[end] not in outside)):
            end += 1
        if end == done:
            break  # the rest cannot reach the window: their rows are not read
        more, more_vectors = read(order[done:end])
        if facts is not None:
            facts.learn(more.values())
        memories.update(more)
        vectors.update(more_vectors)
        done = end
        c = Candidates(text, asked, ranked, memories, vectors, chain)
        if not spanned:
            hits = _ranked(c, now, q, zone)
            # the window's lowest score (``prefer_newer`` only lowers scores inside it, and only reorders
            # it): each of the whole ranking's first ``window`` scores at least this much before weighing
            cut = hits[window - 1].score if len(hits) >= window else -math.inf
            continue
        weighed = _weighed(c, now, q)
        hits = _spanned(weighed, q, zone)
        if done < len(order):  # else nothing is left to read
            cut = _span_cut(weighed, hits, q, window, k, zone)
    return hits[:k]


def _span_cut(weighed: list[Hit], hits: list[Hit], q: Question, window: int, k: int, zone: tzinfo) -> float:
    """The least score an unread candidate outside the span must stay below for ``hits[:k]`` (the read
    candidates' ``weighed`` ranking, spans first: ``_spanned``) to be the whole ranking's, scores and all.

    Besides ``top_hits``' window: the weighed score of each hit outside the span up to the first one at
    or after the k-th (a hit lifted above it takes its score from the one below it), and of each hit
    inside the span among them that holds none of the question's words (``favour_span`` places such a
    hit just below the lowest better match above it, which could be an unread one). An unread candidate
    below all of these neither comes before those outside nor is above those placed so, so none moves;
    one inside the span that holds a word goes above every hit outside whatever their scores. Read
    candidates all inside the span: no cut (``favour_span`` keeps their order, and would not once one
    outside joins)."""
    if len(weighed) < window:
        return -math.inf
    cut = weighed[window - 1].score
    assert q.span is not None
    inside = [in_span(h, q.span, zone) for h in hits]
    if not any(inside):
        return cut  # as without a span: ``favour_span`` changes nothing, read or not
    if all(inside):
        return -math.inf
    end = next((n for n in range(k - 1, len(hits)) if not inside[n]), len(hits) - 1)
    holds = holds_question_words(q.rest)
    score = {h.memory.id: h.score for h in weighed}
    return min(
        cut,
        *(score[h.memory.id] for h, i in zip(hits[: end + 1], inside, strict=False) if not i or not holds(h)),
    )


@dataclass(frozen=True, slots=True)
class Bounds:
    """Per candidate, the most ``weigh`` can score it whatever its row holds (``most``), and the least it
    scores if its row is still valid and in the asker's scopes (``least``).

    ``most``: ``fuse``'s sum with each signal's per-memory scale at its largest (``keyword_coverage``
    is a share, at most 1; ``cross_script`` multiplies a vector share by a factor or leaves it), times
    the largest importance, recency and scope factors ``weigh`` can apply, and ``MARGIN`` more for
    the floats' rounding (the exact score takes its steps in another order). ``least``, which only
    decides where reading starts, with the smallest.
    """

    most: dict[str, float]
    least: dict[str, float]

    @staticmethod
    def of(
        q: Question,
        ranked: dict[str, list[Match]],
        chain: Sequence[str],
        facts: RowFacts | None = None,
        now: datetime | None = None,
    ) -> Bounds | None:
        """The bounds for the question ``q`` (ranked with ``q.weights``), or None when a weight is outside
        the ranges where they hold (a negative one).

        A candidate whose fixed facts are known (``facts``, at ``now``) is bounded by its own script,
        recency and scope factors instead of the largest ones (only importance can still rise).
        """
        text, w = q.text, q.weights
        japanese = CJK.search(text) is not None
        signal = _signal_weights(japanese, w)
        recency = w.now_recency_weight if asks_for_now(text) else w.recency_weight
        if (
            min(*signal.values(), w.importance_weight, recency, w.ancestor_penalty, w.further_level_penalty)
            < 0
            or w.importance_weight >= 2.0  # an importance factor of 0 or less would turn the order round
            or w.vector_weight == 0
            or not w.recency_half_life_days > 0  # a recency factor above 1 + its weight
        ):
            return None
        cross = w.cross_script and not japanese and bool(ranked.get("vector")) and bool(ranked.get("keyword"))
        factor = max((w.keyword_weight + w.vector_weight) / w.vector_weight, 1.0) if cross else 1.0
        scopes = [scope_factor(d, w) for d in range(max(len(chain), 1))]
        high = (1.0 + w.importance_weight * 0.5) * (1.0 + recency) * max(scopes) * (1.0 + MARGIN)
        low = (1.0 - w.importance_weight * 0.5) * min(scopes)
        # per candidate, its shares of the other signals and of the vector's (a Japanese question's
        # keyword share may be any part of 1: their plain sum is what to expect there, not a bound)
        other: dict[str, float] = {}
        vector: dict[str, float] = {}
        for name, matches in ranked.items():
            if not matches:
                continue
            normalised = levels(matches)
            weight = signal_weight(name, normalised, signal, standout=w.standout)
            into = vector if name == "vector" else other
            for match, level in zip(matches, normalised, strict=True):
                into[match.memory_id] = into.get(match.memory_id, 0.0) + weight * level
        most: dict[str, float] = {}
        least: dict[str, float] = {}
        known = facts.kept() if facts is not None and now is not None else {}
        distances = {s: d for d, s in enumerate(chain)}
        heaviest, lightest = 1.0 + w.importance_weight * 0.5, 1.0 - w.importance_weight * 0.5
        for memory_id in [*other, *(m for m in vector if m not in other)]:
            mine, seen = other.get(memory_id, 0.0), vector.get(memory_id, 0.0)
            fixed = known.get(memory_id)
            if fixed is None:
                most[memory_id] = (mine + seen * factor) * high
                least[memory_id] = (mine + seen) * low
                continue
            distance = distances.get(fixed.scope)
            if distance is None or now is None:  # ``weigh`` drops a row outside the asker's lineage
                most[memory_id] = least[memory_id] = 0.0
                continue
            # ``weigh``'s own recency and scope factors, the largest importance factor
            age_days = max((now - fixed.created_at).total_seconds() / 86400.0, 0.0)
            own = (1.0 + recency * 0.5 ** (age_days / w.recency_half_life_days)) * scope_factor(distance, w)
            share = mine + seen * factor if fixed.japanese else mine + seen
            most[memory_id] = share * heaviest * own * (1.0 + MARGIN)
            least[memory_id] = share * lightest * own
        return Bounds(most, least)

    def first_cut(self, window: int) -> float:
        """The ``window``-th largest ``least``: candidates whose ``most`` is below it are not read first."""
        if len(self.least) <= window:
            return -math.inf
        return sorted(self.least.values(), reverse=True)[window - 1]
