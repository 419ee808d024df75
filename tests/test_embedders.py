"""The bundled embedding models load offline and put related texts close together."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shitsuji.errors import UserInputError
from shitsuji.memory import (
    E5Embedder,
    Embedder,
    MemoryEngine,
    UseE5Embedder,
    USEEmbedder,
    embedder_names,
    load_embedder,
    open_store,
)


@pytest.fixture(scope="module", params=["use", "e5", "use+e5"])
def model(request: pytest.FixtureRequest) -> Embedder:
    return load_embedder(request.param)


def test_vectors_are_unit_length_and_stable(model: Embedder) -> None:
    docs = model.embed_documents(["妻は紅茶が好き", "The wifi password is on the fridge"])
    assert docs.dtype == np.float32 and docs.shape[0] == 2
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    assert np.allclose(
        docs, model.embed_documents(["妻は紅茶が好き", "The wifi password is on the fridge"]), atol=1e-5
    )


@pytest.mark.parametrize(
    ("query", "right", "wrong"),
    [
        ("飲み物の好みは？", "妻は紅茶が好きでよく飲む", "ゴミの日は月曜と木曜"),
        ("what pet does she have", "She adopted a calico cat last spring", "The car needs new tyres"),
    ],
)
def test_meaning_beats_unrelated_text(model: Embedder, query: str, right: str, wrong: str) -> None:
    q = model.embed_query(query)
    docs = model.embed_documents([right, wrong])
    assert float(docs[0] @ q) > float(docs[1] @ q)


def test_use_matches_across_languages() -> None:
    model = USEEmbedder()
    q = model.embed_query("Where was my husband born?")
    docs = model.embed_documents(["夫は沖縄生まれ", "今日は雨が降っている"])
    assert float(docs[0] @ q) > float(docs[1] @ q)


def test_model_ids_differ_so_vectors_never_mix() -> None:
    ids = {USEEmbedder.model_id, E5Embedder.model_id, UseE5Embedder.model_id, load_embedder("hash").model_id}
    assert len(ids) == 4


def test_unknown_embedder_names_the_choices() -> None:
    assert {"use", "e5", "use+e5", "hash"} <= set(embedder_names())
    with pytest.raises(UserInputError, match="use"):
        load_embedder("word2vec")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("夫は沖縄出身", "妻は沖縄出身"),
        ("My mother's birthday is March 14", "My father's birthday is March 14"),
        ("妻は紅茶が好き", "妻はコーヒーが好き"),
    ],
)
def test_different_facts_are_never_merged_as_duplicates(model: Embedder, a: str, b: str) -> None:
    vectors = model.embed_documents([a, b])
    assert float(vectors[0] @ vectors[1]) < model.dedupe_threshold


def test_context_never_turns_a_new_turn_into_a_duplicate(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    engine = MemoryEngine(store, load_embedder("use"))
    context = "Caroline: I went to the support group yesterday.\nMelanie: That sounds powerful!"
    first = engine.remember("Caroline: It was, I felt accepted.", "c", context=context)
    second = engine.remember("Caroline: Next week I start counseling classes.", "c", context=context)
    assert not first.duplicate and not second.duplicate
    store.close()


def test_use_e5_cosine_is_the_mean_of_the_two_models_cosines() -> None:
    texts = ["夫は沖縄生まれ", "My husband was born in Okinawa", "The car needs new tyres"]
    both = load_embedder("use+e5").embed_documents(texts)
    use, e5 = USEEmbedder().embed_documents(texts), E5Embedder().embed_documents(texts)
    assert both.shape == (3, 512 + 384)
    assert np.allclose(both @ both.T, (use @ use.T + e5 @ e5.T) / 2, atol=1e-5)
    question = load_embedder("use+e5").embed_query("Where was he born?")
    mean = (
        USEEmbedder().embed_query("Where was he born?") @ use.T
        + E5Embedder().embed_query("Where was he born?") @ e5.T
    ) / 2
    assert np.allclose(both @ question, mean, atol=1e-5)


def test_use_e5_a_japanese_question_finds_an_english_memory(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    engine = MemoryEngine(store, load_embedder("use+e5"))
    engine.remember("My husband was born in Okinawa and moved to Tokyo for university.", "home")
    engine.remember("The car needs new tyres before winter.", "home")
    engine.remember("Garbage goes out on Mondays and Thursdays.", "home")
    hits = engine.recall("夫の出身地はどこ？", "home", k=1)
    assert [h.memory.content for h in hits] == [
        "My husband was born in Okinawa and moved to Tokyo for university."
    ]
    store.close()


def test_use_e5_dedupe_merges_a_restatement_not_a_new_value(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    engine = MemoryEngine(store, load_embedder("use+e5"))
    assert not engine.remember("妻は紅茶が好き", "home").duplicate
    assert engine.remember("妻は紅茶が好きです", "home").duplicate  # 0.986
    # use alone puts these two at 0.956, above its own 0.92; the mean of both models at 0.951
    assert not engine.remember("The deploy day is Tuesday", "home").duplicate
    assert not engine.remember("The deploy day is Thursday", "home").duplicate
    assert len(list(engine.list_memories("home"))) == 3
    store.close()
