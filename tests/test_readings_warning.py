"""Rows written before Japanese readings were indexed are found by their written forms only, until
``shitsuji reindex``: recall (every channel: it logs), the command line and ``doctor`` say so, with
the count and the fix. The old rows are written as the code before readings wrote them, into a
database at the migration before ``0015_ja23b_terms_readings``, on both engines."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.memory._text import terms
from shitsuji.store import Schema, open_database

from .conftest import Cli, Clock

HOME = "household/futari"
OLD = {
    "o1": "タロウは納豆が食べられない",  # kanji: readings to add
    "o2": "ミオはほうじ茶が好き",
    "o3": "The spare key is under the mailbox.",  # English: nothing to add
    "o4": "コーヒー",  # katakana alone already is its reading
}


def _written_before_readings(target: str) -> None:
    """A database as the code before readings left it: terms of the written forms only."""
    before = Schema("memory", tuple(m for m in MEMORY_SCHEMA.migrations if m.name < "0015"))
    old = open_database(target, before)
    try:
        with old.write() as tx:
            for memory_id, text in OLD.items():
                tx.execute(
                    "INSERT INTO memories (id, scope, content, category, importance, source, created_at, "
                    "updated_at, content_hash, terms) VALUES (?, ?, ?, 'misc', 0.5, 'imported', "
                    "'2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', ?, ?)",
                    (memory_id, HOME, text, f"h-{memory_id}", " ".join(terms(text, readings=False))),
                )
    finally:
        old.close()


def _found(engine: MemoryEngine, query: str) -> list[str]:
    return [h.memory.id for h in engine.recall(query, HOME, k=3, semantic=False)]


@pytest.mark.parametrize("target", ["sqlite", "postgresql"], indirect=True)
def test_rows_without_readings_are_counted_and_told_until_a_reindex(
    target: str, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    _written_before_readings(target)
    store = open_store(target)  # migrates: the two rows with kanji or hiragana are marked
    engine = MemoryEngine(store, HashEmbedder(), clock=clock)
    engine.remember("ミオの母の誕生日は七月二日", HOME)  # written now: with readings, not counted
    assert store.count_without_readings() == 2
    assert "o1" not in _found(engine, "なっとう")  # what the warning is about
    with caplog.at_level(logging.WARNING, logger="shitsuji"):
        engine.recall("なっとう", HOME)  # the first recall of an engine logs it (web, LINE, MCP…)
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "2 memories were indexed before Japanese readings" in said and "shitsuji reindex" in said

    engine.reindex()
    assert store.count_without_readings() == 0
    again = MemoryEngine(store, HashEmbedder(), clock=clock)
    assert again.index_warning() is None
    assert _found(again, "なっとう")[0] == "o1"
    store.close()


def test_recall_and_doctor_on_the_command_line_say_how_many_and_the_fix(cli: Cli, db_path: Path) -> None:
    _written_before_readings(str(db_path))
    run = cli("recall", "なっとう", "--scope", HOME)
    err = " ".join(run.err.split())
    assert run.code == 0 and "2 memories were indexed before Japanese readings" in err
    assert "shitsuji reindex" in err
    doctor = {c["name"]: c for c in json.loads(cli("doctor", "--json").out)["checks"]}
    assert doctor["readings"]["status"] == "warn" and doctor["readings"]["fix"] == "shitsuji reindex"
    assert doctor["readings"]["detail"].startswith("2 memories")

    assert cli("reindex").code == 0
    again = cli("recall", "なっとう", "--scope", HOME)
    assert "warning" not in again.err and "納豆" in again.out
    doctor = {c["name"]: c for c in json.loads(cli("doctor", "--json").out)["checks"]}
    assert doctor["readings"]["status"] == "ok"
