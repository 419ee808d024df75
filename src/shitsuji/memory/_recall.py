"""Fusing keyword and vector matches into one ranking.

Each retriever returns its best candidates with a raw score (BM25, cosine). Scores are
min-max normalised within each list and summed with per-signal weights: on the LoCoMo
and LongMemEval dev sets this beat reciprocal-rank fusion (k=60) by 0.09 and 0.01
recall (docs/benchmarks.md), because a strong keyword match keeps its margin instead of
being flattened to a rank. The fused score is then weighted by what a person would
expect to matter: how important the fact is, how recent it is, and how far up the scope
tree it lives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Final

import numpy as np
import numpy.typing as npt

from ._records import Hit, Memory
from ._slots import Match
from ._supersede import overlap
from ._text import CJK

#: Words that ask about the present ("今の晩酌のルールは？", "what do I drink now?"): recency counts more.
#: 今 alone ("今どこに住んでる？") too, but not in the words that name another time: 今日, 今週, 今月,
#: 今年, 今度, 今回, 今朝, 今晩, 今夜, 今後, 今更, 今まで, 今頃.
ASKS_FOR_NOW: Final = re.compile(
    r"今(?![日週月年度回朝晩夜後更頃ま])|いま(?:の|は|、|どこ|何|なに)|まだ|現在|最近|この頃|このごろ|近頃|最新|"
    r"\b(?:now|current|currently|these days|nowadays|latest|recent|recently|lately|anymore|any more|still"
    r"|at the moment|at present|presently)\b",
    re.IGNORECASE,
)


def asks_for_now(question: str) -> bool:
    """Whether the question asks about the present (``ASKS_FOR_NOW``): recency counts more."""
    return ASKS_FOR_NOW.search(question) is not None


@dataclass(frozen=True, slots=True)
class RecallWeights:
    """Tunable knobs of recall; the defaults were tuned on the dev sets in docs/benchmarks.md."""

    candidates: int = 60  # taken from each retriever before fusion
    # English words are precise keywords, Japanese character bigrams much less so: a query in
    # Japanese leans on meaning (LoCoMo dev, leave-one-out: 0.4; Japanese sets: 1.25)
    vector_weight: float = 0.4
    vector_weight_cjk: float = 1.25
    keyword_weight: float = 1.0
    importance_weight: float = 0.2  # score x (1 + w * (importance - 0.5))
    recency_weight: float = 0.1  # score x (1 + w * 0.5 ** (age / half-life))
    recency_half_life_days: float = 90.0
    now_recency_weight: float = 1.0  # recency_weight for a query that asks about the present
    # an ancestor's fact (the household's, shared by its members) counts nearly as much as the member's
    # own: x 0.99, enough to put the own one first on an equal match (issue 23: shared facts found as
    # readily; with x 0.85 for the first level up and x 0.95 for each further one, shared facts lost to
    # a member's distractors that matched no better)
    ancestor_penalty: float = 0.99
    further_level_penalty: float = 1.0
    close_cosine: float = 0.6  # two hits this similar to each other are versions of one fact
    close_overlap: float = 0.6  # without vectors: share of terms they hold in common
    close_match: float = 0.1  # ... when its cosine with the query is at most this much lower
    newer_margin: float = 3.0  # (without cosines: unless the older's score is this many times higher)
    versions_window: int = 10  # how many of the best hits are compared pairwise
    # a question naming a span ("last month", 先週): hits said in it, or about a day or month in it,
    # go first (``_when.favour_span``; off: the figures without it)
    favour_span: bool = True
    # for a Japanese query, the keyword signal scaled by the share of the query's terms a memory holds
    # (``fuse``): its character bigrams match loosely (の誕, 日は); English words do not, and there it
    # cost LoCoMo dev recall@10 in two conversations of three (0.825 -> 0.807, 0.738 -> 0.723)
    keyword_coverage: bool = True
    # each signal's weight scaled by how far its best match stands above the rest of its list
    # (``standout``): no constant; LoCoMo dev recall@10 0.785 -> 0.789, better or equal in each
    # left-out conversation (docs/benchmarks.md, issue 23 lo23); off: the figures without it
    standout: bool = True
    # a Japanese memory for a question without Japanese is judged by the one signal that can see
    # it: its vector share is scaled by
    # (keyword + vector weight) / vector weight (``cross_script``; issue 23 round 3: "Where is Ben
    # from?" lost ベンは大阪出身, the best vector hit, to Ben's English notes matching "ben" by words)
    cross_script: bool = True
    # the question's vector is its sentence's and its content words' mean, half each
    # (``_embedding.question_vector``; no constant): LoCoMo dev R@10 0.809 -> 0.824, every conversation
    # higher, LongMemEval unchanged (docs/benchmarks.md, issue 23 lo27); off: the sentence alone
    word_meanings: bool = True
    # a question that counts, sums, compares or orders several things ("how many", 合計): its vector
    # weighs at least as much as its keywords (``_several``; no constant): LongMemEval_S all@5
    # 0.917 -> 0.958, pooled LongMemEval and LoCoMo unchanged (docs/benchmarks.md, issue 23 ls28)
    several_by_meaning: bool = True
    # a question that asks for a recommendation or advice ("can you recommend …", "any suggestions?",
    # おすすめ) is searched by keywords without those words, which every turn that asked or answered
    # such a thing holds (``_advice``; no constant): LongMemEval_S recall_all@10 0.958 -> 1.000,
    # NDCG@10 0.891 -> 0.923, recall@5, LoCoMo and the Japanese sets unchanged (issue 23 pf29)
    advice_by_topic: bool = True


@dataclass(slots=True)
class Fused:
    score: float = 0.0
    chunk: int = (
        0  # the chunk that matched: the keyword match's (every chunk is in that index), else the vector's
    )
    signals: dict[str, float] = field(default_factory=dict)


def fuse(
    ranked: dict[str, list[Match]],
    weights: dict[str, float],
    scale: dict[str, dict[str, float]] | None = None,
    *,
    standout: bool = False,
    only: AbstractSet[str] | Mapping[str, object] | None = None,
) -> dict[str, Fused]:
    """Weighted sum of min-max normalised scores per memory, keeping the raw score of each signal.

    ``scale`` (signal -> memory id -> factor) weighs one signal per memory: the keyword
    signal by ``keyword_coverage`` (min-max gives the best keyword match 1.0 even when all
    it shares with the question is a name or a particle bigram, and then it outranks the
    memory that means the answer). ``standout`` weighs each signal per question by
    ``standout_of`` its list. ``only``: the memories to fuse (the rows read; each list is still
    normalised whole), the others left out — the same scores for these, without a ``Fused`` for
    every candidate no row was read for (issue 23 fl28).
    """
    out: dict[str, Fused] = {}
    for name, matches in ranked.items():
        if not matches:
            continue
        normalised = levels(matches)
        w = signal_weight(name, normalised, weights, standout=standout)
        shares = scale.get(name) if scale else None
        keyword = name == "keyword"
        for match, level in zip(matches, normalised, strict=True):
            memory_id = match.memory_id
            if only is not None and memory_id not in only:
                continue
            fused = out.get(memory_id)
            if fused is None:
                fused = out[memory_id] = Fused()
            fused.score += (w * shares.get(memory_id, 1.0) if shares else w) * level
            fused.signals[name] = match.score
            if keyword or "keyword" not in fused.signals:
                fused.chunk = match.chunk
    return out


def levels(matches: list[Match]) -> list[float]:
    """A list's scores min-max normalised (all 1.0 when they are equal): its best 1.0, its worst 0.0."""
    scores = [m.score for m in matches]
    low = min(scores)
    span = max(scores) - low
    if span > 0:
        return [(score - low) / span for score in scores]
    return [1.0] * len(scores)


def signal_weight(name: str, normalised: list[float], weights: dict[str, float], *, standout: bool) -> float:
    """A signal's weight for one question (``fuse``): its weight, times ``standout_of`` its list."""
    return weights.get(name, 1.0) * (standout_of(normalised) if standout else 1.0)


def standout_of(normalised: list[float]) -> float:
    """How far a list's best match stands above the list: 1 - the mean of its min-max scores.

    Min-max gives every list's best 1.0 and its worst 0.0, however alike they are: a keyword
    list where many turns share the question's one common word looks as sure as one where a
    single turn holds its rare words. This factor is near 1 when one match stands out and
    near 0.5 or below when the list is flat near the top. One match keeps its weight: nothing
    says it is unsure. So does a list of two different scores: min-max makes it 1 and 0 whatever
    the gap, so its mean says nothing either (issue 23 ja23c: two Japanese questions whose only
    strong keyword match stood at BM25 12.9 against 2.5 and 6.1 against 3.2 had that signal
    halved and lost the note). A list of n equal scores is the least sure of all — min-max gave
    each of them 1.0, as if each were the one best match — and gets 1/n, the chance that its
    pick is the right one (issue 23 ja27: "When is my birthday?" met 16 English notes
    "X's birthday is on …" at one BM25 score, each at full keyword weight, above the asker's
    Japanese note, the 2nd best by meaning).
    """
    if len(normalised) > 1 and min(normalised) == max(normalised):
        return 1.0 / len(normalised)
    if len(normalised) < 3:
        return 1.0
    return 1.0 - sum(normalised) / len(normalised)


def cross_script(
    vector: list[Match], memories: dict[str, Memory], weights: RecallWeights
) -> dict[str, float]:
    """Vector-signal factors of the Japanese memories for a question without Japanese.

    Keywords cannot match across scripts (a name aside: "Ben" is not ベン), so min-max fusion
    gave a Japanese note at most the vector's weight — 0.4 of an English question's 1.4 —
    while the asker's English notes took keyword credit for a shared name alone. Scaling its
    vector share to the weight of both signals scores it as if its words had matched as well
    as its meaning; no constant of its own. The reverse (English notes for a Japanese
    question, × 1.8) was measured and dropped: with 200 distractors it lost queries on every
    Japanese set (docs/benchmarks.md, issue 23 round 3).
    """
    factor = (weights.keyword_weight + weights.vector_weight) / weights.vector_weight
    return {
        m.memory_id: factor
        for m in vector
        if m.memory_id in memories and CJK.search(memories[m.memory_id].content) is not None
    }


def keyword_coverage(query: list[str], held: Mapping[str, AbstractSet[str]]) -> dict[str, float]:
    """Per memory, the share of the query's distinct terms among its own (``held``: id -> terms)."""
    wanted = set(query)
    if not wanted:
        return {}
    return {memory_id: len(wanted & mine) / len(wanted) for memory_id, mine in held.items()}


def weigh(
    fused: dict[str, Fused],
    memories: dict[str, Memory],
    distances: dict[str, int],
    now: datetime,
    w: RecallWeights,
    *,
    asks_for_now: bool = False,
    vectors: dict[str, npt.NDArray[np.float32]] | None = None,
) -> list[Hit]:
    """Apply importance, recency and scope distance; drop rows no longer valid; best first."""
    recency_weight = w.now_recency_weight if asks_for_now else w.recency_weight
    hits: list[Hit] = []
    for memory_id, found in fused.items():
        memory = memories.get(memory_id)
        if memory is None or memory.deleted_at is not None:
            continue
        if memory.valid_until is not None and memory.valid_until <= now:
            continue
        distance = distances.get(memory.scope)
        if distance is None:  # never show a row outside the reader's lineage
            continue
        age_days = max((now - memory.created_at).total_seconds() / 86400.0, 0.0)
        recency = 0.5 ** (age_days / w.recency_half_life_days)
        final = (
            found.score
            * (1.0 + w.importance_weight * (memory.importance - 0.5))
            * (1.0 + recency_weight * recency)
            * scope_factor(distance, w)
        )
        hits.append(Hit(memory=memory, score=final, signals=found.signals, chunk=found.chunk))
    hits.sort(key=lambda h: h.score, reverse=True)
    return prefer_newer(hits, w, vectors or {})


def scope_factor(distance: int, w: RecallWeights) -> float:
    """``weigh``'s factor for a fact ``distance`` levels up the asker's scope chain."""
    if distance == 0:
        return 1.0
    return float(w.ancestor_penalty * w.further_level_penalty ** (distance - 1))


def prefer_newer(hits: list[Hit], w: RecallWeights, vectors: dict[str, npt.NDArray[np.float32]]) -> list[Hit]:
    """Among the best hits, put the newer of two versions of a fact first (a stronger recency rule).

    Two hits are versions when their vectors' cosine reaches ``close_cosine`` (or, without
    vectors, they share ``close_overlap`` of their terms) and were stated at least a day
    apart. The older one is moved just below the newer when the two match the query about
    as well: the newer's cosine with the query is at most ``close_match`` lower (raw
    cosines, since min-max fused scores of a short candidate list exaggerate any gap), or
    without cosines its fused score is within ``newer_margin``. A much better match stays
    first; nothing is dropped.
    """
    top = hits[: w.versions_window]
    scores = [h.score for h in top]
    for i, old in enumerate(top):
        for j, new in enumerate(top):
            if new.memory.created_at - old.memory.created_at < timedelta(days=1):
                continue
            if scores[i] < scores[j] or not about_as_well(old, new, w):
                continue
            if _versions(old, new, vectors, w):
                scores[i] = scores[j] * 0.99
    if scores == [h.score for h in top]:
        return hits
    ranked = sorted(
        (replace(h, score=s) if s != h.score else h for h, s in zip(top, scores, strict=True)),
        key=lambda h: h.score,
        reverse=True,
    )
    return ranked + hits[w.versions_window :]


def about_as_well(old: Hit, new: Hit, w: RecallWeights) -> bool:
    """Whether ``new`` matches the query nearly as well as ``old`` (see ``prefer_newer``)."""
    old_cosine, new_cosine = old.signals.get("vector"), new.signals.get("vector")
    if old_cosine is not None and new_cosine is not None:
        return new_cosine >= old_cosine - w.close_match
    return old.score < new.score * w.newer_margin


def _versions(a: Hit, b: Hit, vectors: dict[str, npt.NDArray[np.float32]], w: RecallWeights) -> bool:
    va, vb = vectors.get(a.memory.id), vectors.get(b.memory.id)
    if va is not None and vb is not None:
        return float(va @ vb) >= w.close_cosine
    return overlap(a.excerpt, b.excerpt) >= w.close_overlap
