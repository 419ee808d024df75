"""An import reads the rows its lines could repeat once a batch, not once a line (SQLite and PostgreSQL).

Its dedupe asked the store per line whether a live row of the same scope held the same text (and, for a
line with an id, whether that id was stored): one round trip a line, 60 % of a 5,000-line import's time on
PostgreSQL (docs/benchmarks.md, "Issue 25, bk25"). The same answers, from one read of each kind a batch."""

from __future__ import annotations

import io
import json

from shitsuji.bench._statements import counting
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.memory._transfer import import_file


def _file(rows: list[dict[str, str]]) -> io.StringIO:
    return io.StringIO("\n".join(json.dumps(r, ensure_ascii=False) for r in rows))


def test_an_import_dedupes_from_one_read_a_batch_with_the_same_answers(target: str) -> None:
    with counting(target) as (url, statements):
        engine = MemoryEngine(open_store(url), HashEmbedder())
        try:
            kept = engine.remember("the kettle is in the left cupboard", "home")
            gone = engine.remember("お茶は棚の上にある", "home")
            engine.forget(gone.memory.id)
            statements.mark()
            lines = [{"content": f"line {i} about tea number {i}", "scope": "home"} for i in range(1200)]
            lines += [
                {"content": "the kettle is in the left cupboard", "scope": "home"},  # a live row's text
                {"content": "the kettle is in the left cupboard", "scope": "wife"},  # another scope: new
                {"content": "お茶は棚の上にある", "scope": "home"},  # a forgotten row's text: new
                {"content": "line 7 about tea number 7", "scope": "home"},  # twice in the file
                {"content": "a fact with a stored id", "scope": "home", "id": kept.memory.id},
                {"content": "a fact with an id of its own", "scope": "home", "id": "given-1"},
                {"content": "another fact claiming that id", "scope": "home", "id": "given-1"},
            ]
            report = import_file(engine, _file(lines))
            assert (report.added, report.duplicates) == (1205, 2)
            hash_reads = [s for s in statements.snapshot() if "content_hash" in s.sql and s.reads]
            assert len(hash_reads) <= 6, statements.report()  # 3 batches (b6d27b8: one a line, 1,207)
            stored = {m.content: m for m in engine.list_memories(None)}
            assert stored["a fact with an id of its own"].id == "given-1"
            assert stored["another fact claiming that id"].id not in ("given-1", kept.memory.id)
            assert stored["a fact with a stored id"].id != kept.memory.id
            assert (
                len({m.id for m in engine.list_memories(None)}) == 1206
            )  # the one kept before and the 1,205 added
        finally:
            engine.store.close()
