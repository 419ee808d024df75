"""Rows written after a ``purge`` are found, by words and by meaning, in the process that purged.

SQLite hands the largest rowids and embedding sequence numbers of purged rows back to the next
insert, and its in-process search caches top themselves up from rows past the highest rowid and
sequence number they have seen: a purge that left them in place hid every row that took a freed
number back, until the next ``reindex`` (an export imported again with its ids, or a new fact).
PostgreSQL searches in the database, with nothing cached; the same tests run on it.
"""

from __future__ import annotations

import pytest

from shitsuji.memory import MemoryEngine, export_lines, parse_lines
from shitsuji.memory._transfer import import_items

MIO = "household/futari/user/mio"
FACTS = ["ミオはパクチーが大嫌い", "Mio likes horror movies."]


@pytest.fixture
def memory_target(target: str) -> str:
    return target


def _found(engine: MemoryEngine, query: str) -> tuple[list[str], list[str]]:
    """What recall finds for ``query`` by words alone, then by meaning alone."""
    by_words = engine.recall(query, MIO, k=3, semantic=False)
    by_meaning = engine.recall(query, MIO, k=3, lexical=False)
    return [h.memory.content for h in by_words], [h.memory.content for h in by_meaning]


def _forget_all_and_purge(engine: MemoryEngine) -> None:
    for memory in list(engine.list_memories(MIO)):
        engine.forget(memory.id)
    engine.purge()
    assert _found(engine, "horror") == ([], [])


def test_an_export_imported_again_after_a_purge_is_found(engine: MemoryEngine) -> None:
    for fact in FACTS:
        engine.remember(fact, MIO)
    engine.reindex()
    lines = list(export_lines(engine.list_memories(MIO)))
    words, meaning = _found(engine, "horror")  # both caches loaded, to the last rowid and vector
    assert words[0] == meaning[0] == FACTS[1]
    _forget_all_and_purge(engine)
    assert import_items(engine, parse_lines(lines)).added == 2  # the same ids, the freed rowids
    words, meaning = _found(engine, "horror")
    assert words[0] == meaning[0] == FACTS[1]
    assert _found(engine, "パクチー")[0][0] == FACTS[0]


def test_a_new_fact_after_a_purge_is_found(engine: MemoryEngine) -> None:
    for fact in FACTS:
        engine.remember(fact, MIO)
    assert _found(engine, "horror")[0] == [FACTS[1]]
    _forget_all_and_purge(engine)
    engine.remember("Mio watches horror films on Fridays.", MIO)  # a new id on a freed rowid
    words, meaning = _found(engine, "horror")
    assert words == ["Mio watches horror films on Fridays."]
    assert meaning[0] == "Mio watches horror films on Fridays."
