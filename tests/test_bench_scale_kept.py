"""``bench scale --keep DIR``: SQLite's memory part is filled once, later runs time recall on a copy."""

from __future__ import annotations

import hashlib
from pathlib import Path

from shitsuji.bench.scale_kept import kept_memory_scale
from shitsuji.store import close_databases, database


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_fill_is_made_once_and_a_run_never_changes_it(tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    try:
        first_tmp, second_tmp = tmp_path / "run1", tmp_path / "run2"
        first_tmp.mkdir()
        second_tmp.mkdir()
        first = kept_memory_scale(keep, first_tmp, 400, 20, queries=6, dim=16)
        assert first["filled"] and first["memories"] == 400 and first["ingest_rows_per_s"] > 0
        kept = keep / "memory-400-20-16.db"
        rows = database(kept).execute("SELECT count(*) FROM memories").fetchone()[0]
        before = digest(kept)

        again = kept_memory_scale(keep, second_tmp, 400, 20, queries=6, dim=16)
        assert "filled" not in again and "ingest_rows_per_s" not in again
        assert again["memories"] == rows  # the copy holds what the fill left (its online rows too)
        assert again["recall_p95_ms"] > 0 and again["first_recall_after_open_ms"] > 0
        assert (second_tmp / "memory.db").exists()
        assert digest(kept) == before  # timed on the copy: the kept fill is as it was

        other = tmp_path / "run3"
        other.mkdir()
        refilled = kept_memory_scale(keep, other, 300, 20, queries=6, dim=16)  # another size: filled anew
        assert refilled["filled"] and refilled["memories"] == 300
        assert not kept.exists()  # the other size's fill is gone
    finally:
        close_databases()
