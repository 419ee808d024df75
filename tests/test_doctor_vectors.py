"""``shitsuji doctor``'s ``vectors`` line tells a fact awaiting re-embedding (its old vector kept, still found
by meaning) from a fact without a vector (missed by meaning), each with its fix; both engines (issue 23)."""

from __future__ import annotations

import json
from typing import Any

from shitsuji.memory import HashEmbedder, MemoryEngine, NewMemory
from shitsuji.memory._embedding import embed_rows
from shitsuji.memory._open import memory_store
from shitsuji.memory._schema import MEMORY_SCHEMA
from shitsuji.store import open_database

from .conftest import Cli, Clock

KEN = "household/futari/user/ken"
EMBEDDER = HashEmbedder()  # the ``cli`` fixture's


def _vectors_line(cli: Cli, target: str) -> dict[str, Any]:
    where = ("--database-url", target) if target.startswith("postgresql") else ("--db", target)
    run = cli(*where, "doctor", "--json")
    return next(c for c in json.loads(run.out)["checks"] if c["name"] == "vectors")


def test_doctor_tells_facts_awaiting_re_embedding_from_facts_without_a_vector(
    cli: Cli, target: str, clock: Clock
) -> None:
    db = open_database(target, MEMORY_SCHEMA)
    engine = MemoryEngine(memory_store(db), EMBEDDER, clock=clock)
    try:
        keyed = engine.remember("Ken is allergic to shellfish", KEN, keys=["エビ", "甲殻類"]).memory
        engine.remember("ケンは市役所の税務課で働いている", KEN)
        engine.add_many([NewMemory(content="卵は冷蔵庫の右", scope=KEN)])  # committed, not embedded
        # as 0027_rk26_keyed_vectors_again marks a keyed fact from before: its vector kept, to be made again
        db.execute("UPDATE memories SET embedding_model = NULL WHERE id = ?", (keyed.id,))
        model = EMBEDDER.model_id

        line = _vectors_line(cli, target)
        assert line["status"] == "warn"
        assert line["detail"].startswith(f"1 of 3 memories have {model} vectors")
        assert "1 awaiting re-embedding (old vector kept: still found by meaning" in line["detail"]
        assert "1 without a vector: recall by meaning misses them" in line["detail"]
        assert line["fix"] == "shitsuji --embedder hash reindex"

        engine.index_pending()  # both embedded: the one without, and the one awaiting
        assert _vectors_line(cli, target) == {
            "name": "vectors",
            "status": "ok",
            "detail": f"3 memories embedded with {model}",
            "fix": "",
        }

        db.execute("UPDATE memories SET embedding_model = NULL WHERE id = ?", (keyed.id,))
        line = _vectors_line(cli, target)  # awaiting alone: found meanwhile, embedded when a server starts
        assert line["status"] == "warn" and "without a vector" not in line["detail"]
        assert line["detail"] == (
            f"2 of 3 memories have {model} vectors; 1 awaiting re-embedding (old vector kept: still found by "
            "meaning, their keys' meaning not in it yet)"
        )
        assert "shitsuji serve" in line["fix"] and "hook server" in line["fix"] and "reindex" in line["fix"]
        # and it is found by its old vector meanwhile
        vector = embed_rows(EMBEDDER, [("Ken is allergic to shellfish", None, ("エビ", "甲殻類"))])[0][0]
        assert engine.store.vector_search(model, vector, [KEN], 1)[0].memory_id == keyed.id
    finally:
        engine.store.close()
        db.close()
