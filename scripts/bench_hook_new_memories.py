"""The hook server when memories are saved while it runs: CPU per new memory asked about, at 10,000.

    S=.venv/bin/shitsuji
    SHITSUJI_CACHE_DIR=/tmp/c $S bench hook --n 10000 --runs 3 --keep /tmp/keep   # the kept project, once
    .venv/bin/python scripts/bench_hook_new_memories.py /tmp/keep/hook-10000-use SECOND.arrays 20
    PYTHONPATH=<main checkout>/src .venv/bin/python scripts/bench_hook_new_memories.py … (the same, on main)

``SECOND.arrays``: the kept server's second-model vectors (``hook-….second.arrays`` in the cache
folder; with its ``.journal`` if any). Both are copied first (the database and the file are
written to). Each cycle saves one new memory in the project, then asks two prompts about it
through ``HookServer.answer`` in process: the first meets a passage the second model has not
embedded and queues it (the first model answers alone), the background thread embeds it,
the second is answered with both models. Prints the process's CPU (every thread) and wall time
per cycle, p50 / p95, the file and journal sizes after, and the load average.

Why: ``bench hook`` asks about memories embedded ahead, so it never sees what one new passage
costs; main re-averaged every passage for the language means and rewrote the whole passage file
(16 MB at 10,000) for each (docs/benchmarks.md, hk23c).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

TOPICS = [
    "the nightly backup job",
    "the staging VPN",
    "the feature flag service",
    "the release train",
    "the on-call pager",
    "the invoice exporter",
    "the search indexer",
    "the image resizer",
    "the audit log",
    "the rate limiter",
]


def main(kept: Path, second_file: Path, cycles: int) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # as the hook server runs e5
    from shitsuji.hooks._prompt import one_blas_thread
    from shitsuji.hooks._second import load_second_opinion
    from shitsuji.hooks._server import HookServer
    from shitsuji.mcp import project_scope
    from shitsuji.memory import MemoryEngine, load_embedder, open_store

    one_blas_thread()
    work = Path(tempfile.mkdtemp(prefix="hook-new-memories-"))
    shutil.copy(kept / "bench.db", work / "bench.db")
    for source in (second_file, second_file.with_name(second_file.name + ".journal")):
        if source.exists():
            shutil.copy(source, work / source.name.replace(second_file.name, "second.arrays"))
    project = kept / "home" / "u" / "projects" / "main-project"
    scope = project_scope(project)
    store = open_store(work / "bench.db")
    engine = MemoryEngine(store, load_embedder("use"))
    second = load_second_opinion(file=work / "second.arrays")
    assert second is not None, "needs the e5 extra"
    server = HookServer(engine, work / "bench.db", work / "s.sock", idle_timeout=60, second=second)
    server.warm_up()
    second.wait_idle(3600)

    def line(prompt: str) -> bytes:
        payload = {"session_id": "b", "cwd": str(project / "src"), "hook_event_name": "UserPromptSubmit"}
        return json.dumps({"v": 1, "payload": json.dumps({**payload, "prompt": prompt}), "k": 5}).encode()

    cpu, wall = [], []
    for i in range(cycles):
        topic = TOPICS[i % len(TOPICS)]
        engine.remember(f"Ticket {i}: {topic} runs on host build-{i:03d} and is owned by team {i % 7}", scope)
        c, w = time.process_time(), time.perf_counter()
        server.answer(line(f"where does {topic} run? ticket {i}"))
        second.wait_idle(120)
        server.answer(line(f"who owns {topic}? ticket {i}"))
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
    second.stop()
    store.close()
    file, journal = work / "second.arrays", work / "second.arrays.journal"
    cpu.sort()
    wall.sort()
    print(
        f"{cycles} cycles: CPU per cycle p50 {cpu[len(cpu) // 2]:.1f} p95 {cpu[int(len(cpu) * 0.95)]:.1f} ms, "
        f"wall p50 {wall[len(wall) // 2]:.1f} ms; file {file.stat().st_size} B, "
        f"journal {journal.stat().st_size if journal.exists() else 0} B; load {os.getloadavg()[0]:.1f}"
    )
    shutil.rmtree(work)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 20)
