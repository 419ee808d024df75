"""The hook server embeds the facts left without a vector of its model (issue 23).

The prompt hook searches by meaning alone, so a fact without a vector (a failed embed, an import's rows
before their embedding) is not shown, and a keyed fact marked by ``0027_rk26_keyed_vectors_again`` is
shown by its old vector. Where only the coding-agent hook runs, no ``shitsuji serve`` embeds them: the hook
server does it at its start (``MemoryEngine.index_in_background``, the one ``serve`` starts). A real
server process on a real socket, asked by a real hook process."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from shitsuji.mcp import project_scope
from shitsuji.memory import MemoryEngine, NewMemory, USEEmbedder, open_store
from shitsuji.memory._embedding import embed_rows

from .test_hook_server import answers, hook, start, stop_started_server, wait_for
from .test_hooks import claude_payload, context_of
from .test_keys_again import _stored

TESTS = "Run the tests with make test, never bare pytest"
DEPLOY = "Deploy with make release, only on Tuesdays"
DEPLOY_KEYS = ("shipping", "リリース", "本番")
USE = {"SHITSUJI_EMBEDDER": "use"}  # a model with a gate: the hook searches by meaning alone


@pytest.fixture
def memory(db_path: Path) -> Iterator[MemoryEngine]:
    store = open_store(db_path)
    yield MemoryEngine(store, USEEmbedder())
    store.close()


def test_the_hook_server_embeds_the_facts_left_without_a_vector_and_the_hook_then_finds_them(
    db_path: Path, memory: MemoryEngine, tmp_path: Path
) -> None:
    project = tmp_path / "home" / "u" / "projects" / "app"
    (project / ".git").mkdir(parents=True)
    scope = project_scope(project)
    memory.remember("bootstrap note", "fs/elsewhere")
    added, _ = memory.add_many([NewMemory(content=TESTS, scope=scope)])  # committed, not embedded yet
    assert added == 1
    keyed = memory.remember(DEPLOY, scope, keys=list(DEPLOY_KEYS)).memory
    keyed_vector = _stored(memory, keyed.id)
    # as the migration leaves a fact keyed before keys counted as meaning: its words' vector, marked
    words_alone = embed_rows(memory.embedder, [(DEPLOY, None, ())])[0]
    memory.store.put_vectors(memory.embedder.model_id, [(keyed.id, words_alone)])
    memory.store.database.execute("UPDATE memories SET embedding_model = NULL WHERE id = ?", (keyed.id,))
    assert memory.pending() == 2 and _stored(memory, keyed.id) != keyed_vector
    payload = claude_payload("how do I run the tests?", project)
    alone = hook(db_path, payload, SHITSUJI_HOOK_SERVER="off", **USE)
    assert alone.returncode == 0 and "make test" not in context_of(alone.stdout)  # no vector: not found
    process: subprocess.Popen[bytes] = start(db_path, **USE)
    try:
        wait_for(lambda: answers(db_path, "use"), 180)
        wait_for(lambda: memory.pending() == 0, 180)  # no reindex, no import: the server embedded them
        served = hook(db_path, payload, **USE)
        assert served.returncode == 0 and "make test" in context_of(served.stdout)
        # with its keys' meaning now (the server's model is the mapped copy: equal to float rounding)
        now = np.frombuffer(_stored(memory, keyed.id), dtype=np.float32)
        assert np.allclose(now, np.frombuffer(keyed_vector, dtype=np.float32), atol=1e-5)
        assert not np.allclose(now, words_alone.ravel(), atol=1e-2)
    finally:
        process.terminate()
        process.wait(10)
        stop_started_server(db_path, "use")
