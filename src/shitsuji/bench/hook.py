"""Latency of the prompt hook as a coding agent sees it: a fresh process per prompt.

A throw-away project (a folder with ``.git``) gets ``n`` synthetic memories through the
real path (``add_many`` + ``index_pending`` with the chosen embedder, as ``import`` does);
then each timed run starts ``python -m shitsuji.hooks prompt`` with a Claude Code
``UserPromptSubmit`` payload on stdin and waits for its answer, wall clock. The same is
timed through the full command line (``python -m shitsuji hook prompt``), and the floor
that no hook can go under — starting Python, importing shitsuji — is measured beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..mcp import project_scope
from ..memory import MemoryEngine, NewMemory, SQLiteMemoryStore, load_embedder
from ._common import percentile
from .latency import synthetic_memories, synthetic_queries

Progress = Callable[[str], None]


def _payload(prompt: str, cwd: Path) -> str:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": str(cwd / "transcript.jsonl"),
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    )


def _time_runs(
    command: Sequence[str], payloads: Sequence[str], env: dict[str, str]
) -> tuple[list[float], int]:
    """Wall-clock milliseconds per run, and how many runs printed context."""
    times: list[float] = []
    answered = 0
    for payload in payloads:
        start = time.perf_counter()
        done = subprocess.run(command, input=payload, capture_output=True, text=True, env=env, check=False)
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()}")
        answered += bool(done.stdout.strip())
    return times, answered


def _fill(db: Path, scope: str, embedder: str, n: int, progress: Progress | None) -> float:
    start = time.perf_counter()
    store = SQLiteMemoryStore(db)
    try:
        engine = MemoryEngine(store, load_embedder(embedder))
        engine.add_many(NewMemory(content=text, scope=scope) for text in synthetic_memories(n))
        engine.index_pending(progress=(lambda d, t: progress(f"embedded {d}/{t}")) if progress else None)
    finally:
        store.close()
    return time.perf_counter() - start


def run_hook_bench(
    *, embedder: str, n: int = 10_000, runs: int = 40, progress: Progress | None = None
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-hook-") as tmp:
        project = Path(tmp) / "home" / "u" / "projects" / "main-project"
        (project / ".git").mkdir(parents=True)
        (project / "src").mkdir()
        db = Path(tmp) / "bench.db"
        fill_s = _fill(db, project_scope(project), embedder, n, progress)
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("SHITSUJI_") or k == "SHITSUJI_CACHE_DIR"
        }
        payloads = [_payload(q, project / "src") for q in synthetic_queries(runs)]
        python = sys.executable
        fast = [python, "-m", "shitsuji.hooks", "prompt", "--db", str(db)]
        cli = [python, "-m", "shitsuji", "--db", str(db), "hook", "prompt"]
        _time_runs(fast, payloads[:2], env)  # warm the page cache and .pyc files
        if progress:
            progress(f"timing {runs} hook runs")
        hook_ms, answered = _time_runs(fast, payloads, env)
        cli_ms, _ = _time_runs(cli, payloads[: max(3, runs // 4)], env)
        python_ms, _ = _time_runs([python, "-c", "pass"], payloads[:10], env)
        import_ms, _ = _time_runs([python, "-c", "import shitsuji.hooks"], payloads[:10], env)
    return {
        "embedder": embedder,
        "memories": n,
        "runs": runs,
        "fill_s": round(fill_s, 1),
        "hook_p50_ms": round(percentile(hook_ms, 50), 1),
        "hook_p95_ms": round(percentile(hook_ms, 95), 1),
        "cli_hook_p50_ms": round(percentile(cli_ms, 50), 1),
        "cli_hook_p95_ms": round(percentile(cli_ms, 95), 1),
        "python_start_p50_ms": round(percentile(python_ms, 50), 1),
        "import_p50_ms": round(percentile(import_ms, 50), 1),
        "runs_with_context": answered,
    }
