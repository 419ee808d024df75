"""The day a memory was said, as keyword terms: "What did Maria donate in December 2023?"

A chat line is stored with when it was said (``created_at``), but its words rarely name that day:
"I dropped off the old coats at the shelter" answers a question about December 2023 only through
its date. So every memory is also indexed under its day of the month, the English month name and
the year it was said (``said_terms``), the published "fact-augmented keys" with a timestamp. No
constant: BM25 weighs these terms like any other (a month shared by many memories counts little).

LoCoMo dev, turn-level R@10, each conversation left out (no constant to choose): 0.789 -> 0.809,
every conversation gaining, the gain in the questions naming a month or a year; pooled LongMemEval
and the Japanese sets unchanged (docs/benchmarks.md, "Issue 23, lo23c"). Japanese questions meet it through the year and the day
numbers (2023年12月 holds "2023"); 年/月/日 themselves are not added: every Japanese question about a
birthday (誕生日) would match every memory. The day is the UTC date: the stored instant, without
the household's zone, which the index does not know.
"""

from __future__ import annotations

from datetime import datetime

from ._text import terms

# English month names written out, not ``strftime("%B")``: that follows the process's LC_TIME, and a
# server started under ja_JP would index 「12月」 where the index's other rows hold "December".
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def said_terms(said_at: datetime | None) -> list[str]:
    """Keyword terms of the day ``said_at`` names (day, month, year); none without a time."""
    if said_at is None:
        return []
    return terms(f"{said_at.day} {MONTHS[said_at.month - 1]} {said_at.year}", readings=False)
