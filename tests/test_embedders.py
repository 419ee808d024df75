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
    USEEmbedder,
    embedder_names,
    load_embedder,
    open_store,
)


@pytest.fixture(scope="module", params=["use", "e5"])
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
    assert len({USEEmbedder.model_id, E5Embedder.model_id, load_embedder("hash").model_id}) == 3


def test_unknown_embedder_names_the_choices() -> None:
    assert {"use", "e5", "hash"} <= set(embedder_names())
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
