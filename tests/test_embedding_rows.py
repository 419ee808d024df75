"""What memories' vectors are made of: first chunks only, context mixed in, each chat turn embedded once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._embedders import Matrix
from shitsuji.memory._embedding import VECTOR_CHUNKS, embed_rows


class CountingEmbedder(HashEmbedder):
    """The hash embedder, remembering every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        self.seen.extend(texts)
        return super().embed_documents(texts)


def test_each_chat_turn_is_embedded_once_even_when_quoted_as_context() -> None:
    embedder = CountingEmbedder()
    engine = MemoryEngine(open_store(":memory:"), embedder)
    turns = [
        f"speaker {i % 2}: turn number {i} talks about topic {i}"
        + ("\n- a list\n- of points" if i % 3 else "")
        for i in range(200)
    ]
    engine.add_many(
        NewMemory(content=t, scope="chat", context="\n".join(turns[max(i - 2, 0) : i]) or None)
        for i, t in enumerate(turns)
    )
    engine.index_pending(batch=16)
    assert sorted(embedder.seen) == sorted(turns)  # no turn twice, no context line of its own
    lone = embed_rows(embedder, [("a reply", "a question nobody stored\nwith two lines", ())])
    assert embedder.seen[-2:] == ["a reply", "a question nobody stored\nwith two lines"] and len(lone) == 1


def test_context_pulls_the_vector_towards_it() -> None:
    embedder = HashEmbedder()
    plain, with_context = embed_rows(
        embedder, [("yes, I loved it", None, ()), ("yes, I loved it", "did you like the pottery class?", ())]
    )
    pottery = embedder.embed_query("pottery class")
    assert float(with_context[0] @ pottery) > float(plain[0] @ pottery) + 0.1
    assert np.isclose(np.linalg.norm(with_context[0]), 1.0)


def test_only_the_first_chunks_get_vectors_and_later_ones_are_found_by_words() -> None:
    engine = MemoryEngine(open_store(":memory:"), HashEmbedder())
    filler = "This paragraph is about nothing in particular and goes on for a while. " * 9
    text = "\n".join([filler] * (VECTOR_CHUNKS + 2) + ["The zebra enclosure opens at nine."])
    memory = engine.remember(text, "docs").memory
    vectors = embed_rows(engine.embedder, [(text, None, ())])[0]
    assert len(vectors) == VECTOR_CHUNKS
    hit = engine.recall("zebra enclosure", "docs", k=1)[0]
    assert hit.memory.id == memory.id and "zebra" in hit.excerpt
