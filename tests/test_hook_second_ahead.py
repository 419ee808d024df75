"""The hook server's second model embeds the prompt while the first model searches.

Embedding the prompt with e5 is most of a served prompt's work; it used to start only after
the first model had embedded the prompt and searched. ``SecondOpinion.query_ahead`` starts it
on a thread of its own at once, and ``cosines`` takes that vector: the answer must be the one
the second model would give embedding the prompt itself. The second model here is the test
embedder (real, fast), wrapped to record which thread embedded each prompt.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

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
