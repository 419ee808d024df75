"""A fact's search keys count as meaning too (``_embedding.KEYS_WEIGHT``): a keyed fact's vector is moved
towards its keys' vector, so a Japanese question finds an English note its model keyed in Japanese, by
meaning alone, where the note's own vector ranks it below notes about other people's food. The keyed vector
is made the same way wherever a fact is embedded (remember, edit, import, reindex); a fact without keys
gets exactly the vector it had before. On both engines, with the real ``use`` model."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from shitsuji.memory import HashEmbedder, MemoryEngine, USEEmbedder, export_lines, open_store, parse_lines
from shitsuji.memory._embedding import embed_rows
from shitsuji.memory._transfer import import_items

from .conftest import Clock

KEN = "household/futari/user/ken"
NOTE = "Ken is allergic to shellfish, especially shrimp."
KEYS = ["アレルギー", "甲殻類", "エビ", "食べられないもの"]
QUESTION = "ケンが食べられないものは？"
# notes whose own vectors are nearer the question than NOTE's is (cosine 0.27-0.30 against 0.26)
NEARER = [
    "Kenjiは餅が好きで、毎週土曜日に食べる",
    "Kenjiはうどんが好きで、毎週月曜日に食べる",
    "Chikaはラーメンが好きで、毎週木曜日に食べる",
]


@pytest.fixture(scope="module")
def use() -> USEEmbedder:
    return USEEmbedder()


@pytest.fixture
def engine(target: str, clock: Clock, use: USEEmbedder) -> Iterator[MemoryEngine]:
    store = open_store(target)
    yield MemoryEngine(store, use, clock=clock)
    store.close()


def _by_meaning(engine: MemoryEngine, scope: str = KEN) -> list[str]:
    """What a Japanese question finds by meaning alone (no word of it is in the note or its keys' index)."""
    return [h.memory.content for h in engine.recall(QUESTION, scope, k=4, lexical=False)]


def _remember_nearer(engine: MemoryEngine, scope: str = KEN) -> None:
    for text in NEARER:
        engine.remember(text, scope)


def test_a_japanese_question_finds_an_english_note_by_its_keys_meaning(engine: MemoryEngine) -> None:
    _remember_nearer(engine)
    engine.remember(NOTE, KEN, keys=KEYS)
    assert _by_meaning(engine)[0] == NOTE
    other = "household/futari/user/aki"  # the same note without keys: its own vector ranks it last
    _remember_nearer(engine, other)
    engine.remember(NOTE, other)
    assert _by_meaning(engine, other)[-1] == NOTE


def test_reindex_and_an_edit_that_keeps_the_words_keep_the_keys_meaning(engine: MemoryEngine) -> None:
    _remember_nearer(engine)
    memory = engine.remember(NOTE, KEN, keys=KEYS).memory
    engine.reindex()
    assert _by_meaning(engine)[0] == NOTE
    edited = engine.edit(memory.id, importance=0.4)  # a new row with the same words and keys, embedded anew
    assert edited.keys == tuple(KEYS)
    found = engine.recall(QUESTION, KEN, k=4, lexical=False)
    assert found[0].memory.id == edited.id


def test_an_edit_of_the_words_drops_the_keys_and_their_meaning(engine: MemoryEngine) -> None:
    _remember_nearer(engine)
    memory = engine.remember(NOTE, KEN, keys=KEYS).memory
    edited = engine.edit(memory.id, content="Ken is allergic to shellfish, especially shrimp and crab.")
    assert edited.keys == ()
    found = engine.recall(QUESTION, KEN, k=4, lexical=False)
    assert found[-1].memory.id == edited.id  # re-embedded from its words alone


def test_an_imported_fact_is_embedded_with_its_keys(engine: MemoryEngine) -> None:
    _remember_nearer(engine)
    engine.remember(NOTE, KEN, keys=KEYS)
    lines = list(export_lines(engine.list_memories(KEN)))
    for m in list(engine.list_memories(KEN)):
        engine.forget(m.id)
    engine.purge()
    assert import_items(engine, parse_lines(lines), index=False).added == 4
    assert engine.pending() == 4
    engine.index_pending()  # import's and the background indexer's path: rows read back with their keys
    assert _by_meaning(engine)[0] == NOTE


def test_a_fact_without_keys_gets_exactly_the_vector_it_had() -> None:
    embedder = HashEmbedder()
    texts = ["Ben walks the dog at seven", "ベンは七時に犬の散歩をする"]
    alone = embedder.embed_documents(texts)
    plain, keyed, japanese = embed_rows(
        embedder, [(texts[0], None, ()), (texts[0], None, ["散歩", "犬"]), (texts[1], None, ())]
    )
    assert np.array_equal(plain[0], alone[0]) and np.array_equal(japanese[0], alone[1])
    walk = embedder.embed_query("散歩 犬")
    assert float(keyed[0] @ walk) > float(plain[0] @ walk) + 0.1
    assert np.isclose(np.linalg.norm(keyed[0]), 1.0)
