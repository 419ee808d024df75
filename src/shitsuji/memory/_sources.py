"""Which earlier conversation a fact came from: sources ranked from their recalled turns.

Recall ranks single memories (a turn, an extracted fact); a person asking "when did we talk
about the plumber?" wants the *conversation* (a LongMemEval session, an archived segment)
those memories came from. A source is ranked by the **sum of its two best hits' scores**:
in a question spanning several conversations, a later answer conversation is often outranked
by one stray turn of an unrelated one that happens to share the question's word, while the
answer conversation has two turns that match. Not every turn: the sum of all lets a long
conversation's many weak turns outrank a strong one. Measured on every dev set with folds
that leave question sets / conversations out (docs/benchmarks.md, issue 23 lm23 and sg26):
pooled LongMemEval all@5 0.811 -> 0.832, LongMemEval_S all@10 0.917 -> 0.958, LoCoMo session
R@10 0.9593 -> 0.9608, no fold lower. The benches' official session figures keep the field's
rule (a session ranks by its first turn, LongMemEval's ``evaluate_retrieval_turn2session``);
this is the product's own ranking, reported beside them (``bench longmemeval --segments``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Final, TypeVar

from ._records import Hit

K = TypeVar("K", bound=Hashable)

#: the turns of a source that count towards its score (the published "top-2 sum"; three and
#: "every turn" were measured and lose a fold: docs/benchmarks.md, lm23)
BEST_TURNS: Final = 2


def sources_ranked(hits: Iterable[Hit], source_of: Callable[[Hit], K | None]) -> list[K]:
    """The sources of ``hits``, best first: each scored by the sum of its ``BEST_TURNS`` best hits.

    ``source_of`` names a hit's source (None: it has none, and is left out). Ties keep the order
    in which the sources first appear among the hits."""
    best: dict[K, list[float]] = {}
    for hit in hits:
        source = source_of(hit)
        if source is not None:
            best.setdefault(source, []).append(hit.score)
    score = {s: sum(sorted(scores, reverse=True)[:BEST_TURNS]) for s, scores in best.items()}
    return sorted(best, key=lambda s: -score[s])  # sorted() is stable: ties in order of appearance
