"""Questions that ask for several things: meaning counts at least as much as words.

"How many pieces of furniture did I buy?", "how many months before my anniversary did Rachel get
engaged?", "which did I join first, A or B?", 全部で何回行った？ — such a question is answered by
several memories, and most of them name the thing in their own words, not the question's: a
table lamp and throw pillows for "furniture", a bachelorette party for "got engaged", an Instant Pot
for "kitchen gadget". The keyword list finds the one memory that repeats the question's word (and
every other turn that happens to say it); the others are reached by meaning only. An English
question's vector weighs 0.4 of its keywords' (``RecallWeights.vector_weight``, tuned on LoCoMo,
where most questions ask for one fact), so a memory found only by meaning — 4th to 24th in the
vector list — sank below dozens of turns that share one common word with the question.

For such a question the vector signal weighs at least as much as the keyword signal
(``several_weights``): no constant of its own, the keyword weight is the floor. A Japanese
question already leans on meaning (``vector_weight_cjk`` 1.25 > 1.0), so for it nothing changes.
Measured with left-out folds on every dev set (docs/benchmarks.md, issue 23 ls28): LongMemEval_S
recall_all@5 0.917 -> 0.958, pooled LongMemEval all@10 0.842 -> 0.874 (all@5 unchanged), LoCoMo
unchanged.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from ._recall import RecallWeights

#: a count, a sum, a comparison or an order over several memories; in English and Japanese
ASKS_FOR_SEVERAL: Final = re.compile(
    r"\b(?:how many|how much|in total|total|all the|altogether|both|which \w+ first|order)\b"
    r"|何回|何個|何人|何日(?!前)|いくつ|全部|全て|すべて|合計|どちらが先|順番",
    re.IGNORECASE,
)
#: "how many days ago did I meet Emma?" counts days, not things: it asks for one event's date
ONE_DATE: Final = re.compile(r"\bhow many (?:days|weeks|months|years) ago\b", re.IGNORECASE)


def asks_for_several(question: str) -> bool:
    """Whether the question counts, sums, compares or orders several things (``ASKS_FOR_SEVERAL``), not
    one event's distance in time (``ONE_DATE``)."""
    return ASKS_FOR_SEVERAL.search(question) is not None and ONE_DATE.search(question) is None


def several_weights(question: str, w: RecallWeights) -> RecallWeights:
    """``w``, with the vector weight raised to the keyword weight when the question asks for several
    things (and ``w.several_by_meaning`` is on); else ``w`` itself."""
    if not w.several_by_meaning or w.vector_weight >= w.keyword_weight or not asks_for_several(question):
        return w
    return replace(w, vector_weight=w.keyword_weight)
