"""A large vector snapshot is searched in place once, then copied into the process (issue 23 fl23).

A scan over the read-only mapping of a 100k snapshot ran ~21 % slower than over the same vectors
in the process's own memory (the page cache maps a file 4 KiB at a time, numpy puts its own large
arrays on 2 MiB pages). A one-shot process searches once and keeps the mapping; a process that
searches the scope again holds a private copy from then on — with the same answers throughout.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shitsuji.memory._mapped import read_arrays, write_arrays
from shitsuji.memory._vectors import OWN_MIN_BYTES, VectorIndex

DIM = 64


def _mapped_index(tmp_path: Path, rows: int) -> VectorIndex:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((rows, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    built = VectorIndex(DIM, capacity=rows)
    for i, vector in enumerate(vectors):
        built.add(f"m{i}", "s", vector[None, :])
    matrix, layout = built.export()
    write_arrays(tmp_path / "s.arrays", {"layout": layout}, {"vectors": matrix})
    meta, arrays = read_arrays(tmp_path / "s.arrays")
    index = VectorIndex(DIM, capacity=1)
    index.load_snapshot(arrays["vectors"], meta["layout"])
    return index


def _owned(index: VectorIndex) -> bool:
    matrix, _ = index.export()
    return bool(matrix.flags.writeable)


def test_a_large_mapped_snapshot_is_owned_from_its_second_search(tmp_path: Path) -> None:
    rows = OWN_MIN_BYTES // (4 * DIM) + 10
    index = _mapped_index(tmp_path, rows)
    query = index.export()[0][7].copy()
    assert not _owned(index)
    first = index.search(query, ["s"], 5)
    assert not _owned(index)  # searched once: still the mapping (a one-shot process stops here)
    second = index.search(query, ["s"], 5)
    assert _owned(index)
    assert first == second == index.search(query, ["s"], 5)
    assert first[0].memory_id == "m7"


def test_a_small_mapped_snapshot_stays_mapped(tmp_path: Path) -> None:
    index = _mapped_index(tmp_path, 200)
    query = index.export()[0][3].copy()
    for _ in range(3):
        assert index.search(query, ["s"], 3)[0].memory_id == "m3"
    assert not _owned(index)
