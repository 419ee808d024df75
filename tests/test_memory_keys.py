"""Search keys a model gives with a fact (``remember(keys=…)``): stored with the row and who gave them,
found by keyword search, never shown as the fact, kept by reindex, export and import — and refused with
a clear error, nothing written, when their shape is wrong. On both engines."""

from __future__ import annotations

import pytest

from shitsuji.errors import UserInputError
from shitsuji.memory import MAX_KEY_CHARS, MAX_KEYS, MemoryEngine, export_lines, parse_lines
from shitsuji.memory._transfer import import_items

MIO = "household/futari/user/mio"
FACT = "ミオはパクチーが大嫌い"
KEYS = ["coriander", "cilantro", "香草", "ハーブ", "苦手な食べ物"]
OTHERS = ["ミオは毎朝六時に起きてヨガをする", "ミオの通勤は自転車で二十分", "Mio likes horror movies."]


@pytest.fixture
def memory_target(target: str) -> str:
    return target


def _found(engine: MemoryEngine, query: str) -> list[str]:
    return [h.memory.content for h in engine.recall(query, MIO, k=3, semantic=False)]


def test_a_fact_is_found_by_its_keys_and_shown_by_its_own_words(engine: MemoryEngine) -> None:
    for text in OTHERS:
        engine.remember(text, MIO)
    assert FACT not in _found(engine, "coriander")  # its words alone: no English, no 香草
    result = engine.remember(FACT, MIO, category="preference", keys=KEYS)
    stored = engine.get(result.memory.id)
    assert stored.keys == tuple(KEYS) and stored.keys_by == "model"
    assert _found(engine, "coriander")[0] == FACT
    assert _found(engine, "苦手な香草は？")[0] == FACT
    hit = engine.recall("cilantro", MIO, k=1, semantic=False)[0]
    assert hit.excerpt == FACT and "coriander" not in str(hit.to_json())  # never shown as the fact


def test_keys_survive_reindex(engine: MemoryEngine) -> None:
    engine.remember(FACT, MIO, keys=KEYS)
    engine.remember(OTHERS[0], MIO)
    engine.reindex()
    assert _found(engine, "coriander")[0] == FACT


def test_keys_survive_export_and_import(engine: MemoryEngine) -> None:
    engine.remember(FACT, MIO, keys=KEYS)
    engine.remember(OTHERS[0], MIO)
    lines = list(export_lines(engine.list_memories(MIO)))
    assert any('"keys_by": "model"' in line for line in lines)
    for m in list(engine.list_memories(MIO)):
        engine.forget(m.id)
    engine.purge()
    report = import_items(engine, parse_lines(lines))
    assert report.added == 2
    back = next(m for m in engine.list_memories(MIO) if m.content == FACT)
    assert back.keys == tuple(KEYS) and back.keys_by == "model"
    assert _found(engine, "cilantro")[0] == FACT


def test_keys_are_cleaned_and_a_new_text_drops_them(engine: MemoryEngine) -> None:
    memory = engine.remember(FACT, MIO, keys=["  coriander  leaf ", "coriander  leaf", "香草"]).memory
    assert memory.keys == ("coriander leaf", "香草")  # white space collapsed, the repeat dropped
    assert engine.remember("ミオはセロリが好き", MIO, keys=[]).memory.keys_by is None
    edited = engine.edit(memory.id, content="ミオはパクチーが少し食べられるようになった")
    assert edited.keys == () and edited.keys_by is None  # the keys described the old words
    assert engine.edit(edited.id, importance=0.9).keys == ()


@pytest.mark.parametrize(
    ("keys", "needle"),
    [
        ("coriander, cilantro", "keys must be a list of short strings"),
        ({"en": "coriander"}, "keys must be a list of short strings"),
        (["coriander", 3], r"keys\[1\] must be a string, got int"),
        (["coriander", "   "], r"keys\[1\] is empty"),
        (
            ["x" * (MAX_KEY_CHARS + 1)],
            rf"keys\[0\] is {MAX_KEY_CHARS + 1} characters; the limit is {MAX_KEY_CHARS}",
        ),
        ([f"k{i}" for i in range(MAX_KEYS + 1)], f"{MAX_KEYS + 1} keys given; the limit is {MAX_KEYS}"),
        (["\ud800"], "lone surrogate"),
    ],
)
def test_bad_keys_are_refused_and_nothing_is_written(engine: MemoryEngine, keys: object, needle: str) -> None:
    with pytest.raises(UserInputError, match=needle):
        engine.remember(FACT, MIO, keys=keys)
    assert list(engine.list_memories(MIO)) == []
    assert engine.remember(FACT, MIO).duplicate is False  # the same fact without keys goes in
