"""The dates a memory is about, found when it is written and stored with its row.

"We went to Kyoto last month", 「昨日、新しいソファが届いた」, "the plumber comes on 2026-12-04": a
memory's text names days and months, relative ones seen from when it was said, in the zone it
was said in (``_when.mentioned_spans``). A question naming a span ("what did we do last month?",
先週) puts the memories said in it *or about a day in it* first (``_when.favour_span``). Until
issue 23 (dt29) the second half was read from each candidate's text at question time, ~400
candidates a span question on a pooled haystack; now the row keeps its spans (``memories.about``,
``0028_dt29_about_spans``), made in the write that stores the text — every write goes through
``_rows.values`` (remember, extraction, edit, import, on SQLite and PostgreSQL) — and recall reads
them with the row (``_rows.to_memory`` → ``Memory.about``; ``_when.in_span``).

Stored as the reading rules' version, a colon, then the spans' ``[start, end)`` instants in whole
seconds since the epoch, space-separated (``"1:1761922800 1764514800"``; ``"1:"`` for a text that names
none, most; ``"1:?"`` — ``UNHELD`` — when they cannot be held, a date past the calendar's ends: read from
the text at question time, as before, and not read again by each start), NULL for a row written before
the column. A row made by other rules than this code's
(``RULES``: raise it whenever ``_when.mentioned_spans`` reads a text differently) or before the
column is read from its text at question time, as before, until it is stored again: a stored span
never outlives the rule that made it. ``MemoryEngine.fill_about`` stores them — the rows ``DUE`` picks,
in batches, one statement and one write a batch, no vector touched — at a long-running process's start
(``serve``, the hook server: ``index_in_background``) and in ``reindex``; ``doctor`` counts what waits.
The walk notes the last rowid it looked at and by which rules (``about_walked``, ``0029_ad30_about_walked``):
the next start walks only the rows written since — a table with nothing due was read whole at each
start before: at 1,000,000 rows ~0.3 s of CPU, 0.8–2 s of wall (issue 23, ad30). Every write stores the dates by this code's
rules, so rows up to the mark stay stored, unless a process of other rules rewrites one in place
(recall then reads its text, as for any row not stored); a change of ``RULES`` walks every row again.
A row that names no zone of its own (``_said``) is UTC's here; recall reads such a row's text in the
asker's zone, as it always has, unless the asker's zone is UTC's too (``_when.in_span``).
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Final

from ._records import Memory
from ._said import said_zone
from ._when import mentioned_spans

#: The version of ``_when.mentioned_spans``'s reading the stored spans were made by.
RULES: Final = 1

#: The rows whose ``about`` this code would not read (``stored_about``): to be stored (SQL, both engines).
DUE: Final = f"(about IS NULL OR about NOT LIKE '{RULES}:%')"

#: ``about`` after the colon for a text whose spans cannot be held (``about_spans`` is None).
UNHELD: Final = "?"

Seconds = tuple[tuple[int, int], ...]  # [start, end) pairs, whole seconds since the epoch


def about_spans(content: str, said: datetime, zone: tzinfo) -> Seconds | None:
    """The spans ``content`` is about, said at ``said`` in ``zone``, each once, in order; None when one
    cannot be held (a date outside the calendar's range: recall reads the text, as before)."""
    try:
        return tuple(
            sorted(
                {(int(a.timestamp()), int(b.timestamp())) for a, b in mentioned_spans(content, said, zone)}
            )
        )
    except (OverflowError, ValueError):
        return None


def about_column(memory: Memory) -> str:
    """``memories.about`` for ``memory``: its spans (``about_spans``) in its own zone, as stored."""
    spans = about_spans(memory.content, memory.created_at, said_zone(memory.provenance))
    return f"{RULES}:" + (UNHELD if spans is None else " ".join(f"{a} {b}" for a, b in spans))


def stored_about(column: str | None) -> Seconds | None:
    """The spans a row's ``about`` column holds (None: not stored, stored by other rules than
    ``RULES``, or ``UNHELD``: recall reads the text)."""
    version, _, spans = (column or "").partition(":")
    if version != str(RULES) or spans == UNHELD:
        return None
    n = list(map(int, spans.split()))
    return tuple(zip(n[::2], n[1::2], strict=True))
