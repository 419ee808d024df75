"""The hook server's second model: the work one new passage costs does not grow with the project.

A prompt whose candidates include a passage the second model has not embedded yet (a memory
saved while the server runs, a later chunk) queues it. The server used to re-average every
passage it held for the language means and rewrite its whole passage file for each such
passage — at 10,000 memories ~9 ms on the next prompt and a 16 MB write. Here the second
model is the test embedder (real, fast), so projects of different sizes are cheap to make.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from shitsuji.bench.latency import synthetic_memories
from shitsuji.hooks._passage_file import PassageFile, copy_whole
from shitsuji.hooks._second import SecondOpinion
from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory, open_store
from shitsuji.memory._mapped import read_arrays

SCOPE = "fs/home/u/projects/acme"


def _grown(tmp_path: Path, n: int) -> dict[str, object]:
    """A server's second model over ``n`` memories, then one memory saved meanwhile and asked about:
    what that one new passage cost (vectors averaged, bytes written, the whole file touched?)."""
    store = open_store(tmp_path / f"m{n}.db")
    engine = MemoryEngine(store, HashEmbedder())
    engine.add_many(NewMemory(content=text, scope=SCOPE) for text in synthetic_memories(n, seed=5))
    engine.index_pending()
    file = tmp_path / f"s{n}.second.arrays"
    second = SecondOpinion(HashEmbedder(dim=64), file)
    model = engine.embedder.model_id
    first = lambda ids: engine.store.vectors_of(model, ids)  # noqa: E731
    second.start([(m.id, m.content) for m in engine.list_memories()], engine.embedder, first)
    assert second.wait_idle(120)
    new = engine.remember("The release checklist lives in docs/release.md", SCOPE).memory
    hits = engine.recall("where is the release checklist?", SCOPE, k=5)
    assert new.id in [h.memory.id for h in hits]
    prompt = engine.embedder.embed_query("where is the release checklist?")
    before = (second.averaged, second.bytes_written, os.stat(file).st_ino, file.stat().st_size)
    assert second.cosines("where is the release checklist?", hits, prompt) is None  # queued it
    assert second.wait_idle(120)
    answer = second.cosines("where is the release checklist?", hits, prompt)
    assert answer is not None and new.id in answer
    after = (second.averaged, second.bytes_written, os.stat(file).st_ino, file.stat().st_size)
    second.stop()
    fresh = SecondOpinion(HashEmbedder(dim=64), file)  # the next server: means from the file, all at once
    fresh.start([(m.id, m.content) for m in engine.list_memories()], engine.embedder, first)
    assert fresh.pending() == 0
    reloaded = fresh.cosines("where is the release checklist?", hits, prompt)
    fresh.stop()
    store.close()
    return {
        "averaged": after[0] - before[0],
        "written": after[1] - before[1],
        "whole_file_rewritten": after[2:] != before[2:],
        "answer": answer,
        "reloaded": reloaded,
    }


def test_one_new_passage_costs_the_same_in_a_small_and_a_large_project(tmp_path: Path) -> None:
    small, large = _grown(tmp_path, 20), _grown(tmp_path, 600)
    assert small["averaged"] == large["averaged"] == 1  # one vector into the means, not 20 or 600
    assert small["written"] == large["written"]  # one journal record, whatever the project's size
    assert 0 < int(str(large["written"])) < 1000  # 64 floats and their key, not the 900-passage file
    assert not small["whole_file_rewritten"] and not large["whole_file_rewritten"]
    for case in (small, large):  # the running means and the journal give what a full reload gives
        answer, reloaded = case["answer"], case["reloaded"]
        assert isinstance(answer, dict) and isinstance(reloaded, dict) and answer.keys() == reloaded.keys()
        for mid, (_, second) in answer.items():  # (the first model's means are taken once, at start)
            assert second == pytest.approx(reloaded[mid][1], abs=1e-6)


def _rows(n: int, seed: int, dim: int = 8) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows


def test_the_journal_keeps_what_was_appended_and_the_whole_file_is_rewritten_rarely(tmp_path: Path) -> None:
    path = tmp_path / "p.second.arrays"
    held: dict[str, np.ndarray] = {}
    japanese: set[str] = set()
    file = PassageFile(path, "m")

    def whole() -> tuple[list[str], np.ndarray, set[str]]:
        return list(held), np.vstack(list(held.values())), set(japanese)

    rewrites, inode = 0, None
    for i in range(300):  # one passage per save, as when prompts meet new memories one by one
        key, row = f"k{i}", _rows(1, i, 384)  # e5's size
        held[key] = row[0]
        if i % 3 == 0:
            japanese.add(key)
        file.save([key], row, [i % 3 == 0], whole)
        if os.stat(path).st_ino != inode:
            rewrites, inode = rewrites + 1, os.stat(path).st_ino
    final = path.stat().st_size + (file.journal.stat().st_size if file.journal.exists() else 0)
    assert rewrites <= 9  # the whole file at least doubles between rewrites: log2(300) + 1
    assert file.written <= 5 * final  # rewriting it for each passage would have written ~150x
    loaded = PassageFile(path, "m").load()
    assert loaded is not None
    keys, vectors, flagged = loaded
    assert dict(zip(keys, map(tuple, vectors), strict=True)) == {k: tuple(v) for k, v in held.items()}
    assert flagged == japanese
    assert PassageFile(path, "another model").load() is None
    assert file.journal.exists()  # some passages are only in the journal: a copy folds them in
    assert copy_whole(path, tmp_path / "older.arrays")  # for a server that reads no journal
    meta, arrays = read_arrays(tmp_path / "older.arrays")
    assert meta["keys"] == list(held) and set(meta["japanese"]) == japanese
    assert np.array_equal(arrays["vectors"], np.vstack(list(held.values())))


def test_a_journal_record_cut_short_is_dropped_and_later_ones_are_read(tmp_path: Path) -> None:
    path = tmp_path / "p.second.arrays"
    file = PassageFile(path, "m")
    held = {"a": _rows(1, 1)[0]}
    file.save(["a"], _rows(1, 1), [False], lambda: (list(held), np.vstack(list(held.values())), set()))
    for key, seed in (("b", 2), ("c", 3)):  # both into the journal (smaller than the whole file)
        file.save([key], _rows(1, seed), [True], lambda: pytest.fail("no rewrite expected"))
    with open(file.journal, "r+b") as journal:  # a crash while appending "c"
        journal.truncate(file.journal.stat().st_size - 5)
    loaded = PassageFile(path, "m").load()
    assert loaded is not None and loaded[0] == ["a", "b"] and loaded[2] == {"b"}
    PassageFile(path, "m").save(["d"], _rows(1, 4), [False], lambda: pytest.fail("no rewrite expected"))
    again = PassageFile(path, "m").load()
    assert again is not None and again[0] == ["a", "b", "d"]
    assert np.array_equal(again[1][2], _rows(1, 4)[0])
