"""Latency of the prompt hook as a coding agent sees it: a fresh process per prompt.

A throw-away project (a folder with ``.git``) gets ``n`` synthetic memories through the
real path (``add_many`` + ``index_pending`` with the chosen embedder, as ``import`` does);
then each timed run starts the hook as ``install-hooks`` writes it (``python …/hooks/prompt_entry.py
prompt``; a ``--baseline`` checkout's as ``python -m shitsuji.hooks prompt``) with a Claude Code
``UserPromptSubmit`` payload on stdin and waits for its answer, wall clock. The same is
timed through the full command line (``python -m shitsuji hook prompt``), and the floor
that no hook can go under — starting Python, importing shitsuji — is measured beside it.

Both ways the hook runs are timed on the same database: alone (no hook server: the first
prompt of a session, or ``SHITSUJI_HOOK_SERVER=off``) and asking a running hook server
(every later prompt, once its second model has embedded the memories; and, before that,
while it does), prompt by prompt in turn, so a noisy machine weighs on both alike; ``--baseline`` adds another checkout's
hook (e.g. the previous commit's, from ``git worktree add``) to the rotation — alone, and asking
that checkout's own hook server — and reports the ratios.

``--keep DIR`` keeps the project and its database in DIR, filled once: at 10,000 memories the
server's second model takes many minutes to embed them on a busy machine, and a run that
keeps them finds them embedded (the server keeps its second model's vectors beside its socket,
``hooks._second``); the fill and the embedding are the same as in a fresh run, only not redone.
The baseline's server gets a copy of those vectors (the same database, so the same memories).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._paths import default_cache_dir
from ..hooks._client import ask, socket_path
from ..hooks._passage_file import copy_whole
from ..mcp import project_scope
from ..memory import MemoryEngine, NewMemory, load_embedder, open_store
from ._common import percentile
from ._cpu import cpu_seconds
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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time_runs(
    command: Sequence[str], payloads: Sequence[str], env: dict[str, str], server: int | None = None
) -> tuple[list[float], int, list[float]]:
    """Wall-clock milliseconds per run, how many runs printed context, and CPU milliseconds per run:
    the hook process's (user + system) plus what the hook server (pid ``server``) used meanwhile.

    CPU time moves far less with a shared machine's load than wall time does (``_cpu``).
    """
    times: list[float] = []
    cpu: list[float] = []
    answered = 0
    for payload in payloads:
        cpu0, server0 = _children_cpu(), cpu_seconds([server]) if server else 0.0
        start = time.perf_counter()
        done = subprocess.run(command, input=payload, capture_output=True, text=True, env=env, check=False)
        times.append((time.perf_counter() - start) * 1000)
        server1 = cpu_seconds([server]) if server else 0.0
        cpu.append((_children_cpu() - cpu0 + (server1 or 0.0) - (server0 or 0.0)) * 1000)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()}")
        answered += bool(done.stdout.strip())
    return times, answered, cpu


def _fill(db: Path, scope: str, embedder: str, n: int, progress: Progress | None) -> float:
    start = time.perf_counter()
    store = open_store(db)
    try:
        engine = MemoryEngine(store, load_embedder(embedder))
        engine.add_many(NewMemory(content=text, scope=scope) for text in synthetic_memories(n))
        engine.index_pending(progress=(lambda d, t: progress(f"embedded {d}/{t}")) if progress else None)
    finally:
        store.close()
    return time.perf_counter() - start


@contextmanager
def _workspace(keep: Path | None, embedder: str, n: int, progress: Progress | None) -> Iterator[_Place]:
    """A project with ``n`` memories in its database: fresh in a temporary folder, or kept in a folder of
    ``keep`` named after ``n`` and the embedder (filled on the first run; a marker says the fill finished)."""
    with tempfile.TemporaryDirectory(prefix="shitsuji-bench-hook-") as tmp:
        root = keep / f"hook-{n}-{embedder}" if keep is not None else Path(tmp)
        project = root / "home" / "u" / "projects" / "main-project"
        db, marker = root / "bench.db", root / "filled"
        fill_s: float | None = None  # None: filled by an earlier run
        if keep is None or not marker.exists():
            if keep is not None and root.exists():
                shutil.rmtree(root)  # a fill that did not finish: start over
            (project / ".git").mkdir(parents=True)
            (project / "src").mkdir()
            fill_s = _fill(db, project_scope(project), embedder, n, progress)
            marker.touch()
        yield _Place(project, db, root, fill_s)


class _Place:
    def __init__(self, project: Path, db: Path, root: Path, fill_s: float | None) -> None:
        self.project, self.db, self.root, self.fill_s = project, db, root, fill_s


def run_hook_bench(
    *,
    embedder: str,
    n: int = 10_000,
    runs: int = 40,
    baseline: Path | None = None,
    keep: Path | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """``baseline``: the ``src`` folder of another checkout, whose hook (alone and with its own server) is
    timed beside ours; ``keep``: a folder for the project and database, filled once (module doc)."""
    with _workspace(keep, embedder, n, progress) as place:
        project, db, fill_s = place.project, place.db, place.fill_s
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("SHITSUJI_") or k == "SHITSUJI_CACHE_DIR"
        }
        env["SHITSUJI_EMBEDDER"] = embedder
        alone = {**env, "SHITSUJI_HOOK_SERVER": "off"}
        payloads = [_payload(q, project / "src") for q in synthetic_queries(runs)]
        python = sys.executable
        fast = [python, str(_entry()), "prompt", "--db", str(db)]  # as install-hooks writes it
        # a baseline's hook as agents ran it before ``prompt_entry``
        older = [python, "-m", "shitsuji.hooks", "prompt", "--db", str(db)]
        cli = [python, "-m", "shitsuji", "--db", str(db), "hook", "prompt"]
        _time_runs(fast, payloads[:2], alone)  # warm the page cache and .pyc files
        cli_ms = _time_runs(cli, payloads[: max(3, runs // 4)], alone)[0]
        python_ms, _, python_cpu = _time_runs([python, "-c", "pass"], payloads[:10], alone)
        import_ms = _time_runs([python, "-c", "import shitsuji.hooks"], payloads[:10], alone)[0]
        if progress:
            progress("starting a hook server")
        with contextlib.ExitStack() as stack:
            server = stack.enter_context(_hook_server(db, embedder, env))
            if progress:
                progress("timing the hook server while its second model embeds the memories")
            loading_ms = _time_runs(fast, payloads[: max(3, runs // 2)], env)[0]
            loading_pending = server.pending()
            ready_s = server.ready()
            variants: dict[str, tuple[Sequence[str], dict[str, str]]] = {
                "hook": (fast, alone),
                "server_hook": (fast, env),
            }
            servers = {"server_hook": server.process.pid}
            if baseline is not None:  # another checkout's code, on the same database
                variants["baseline_hook"] = (older, {**alone, "PYTHONPATH": str(baseline)})
                theirs = _baseline_env(env, baseline, place.root / "baseline-cache", server, db, embedder)
                if progress:
                    progress("starting the baseline's hook server")
                other = stack.enter_context(_hook_server(db, embedder, theirs))
                other.ready()
                variants["baseline_server_hook"] = (older, theirs)
                servers["baseline_server_hook"] = other.process.pid
            if progress:
                progress(f"timing {runs} prompts × {len(variants)} ways, interleaved")
            timed = _interleaved(payloads, variants, servers)
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    figures = {
        f"{name}_{stat}_ms": round(percentile(times, q), 1)
        for name, (times, _, _) in timed.items()
        for stat, q in (("p50", 50), ("p95", 95))
    }
    figures |= {  # CPU per prompt: the hook process, plus the server for prompts it answered
        f"{name}_cpu_{stat}_ms": round(percentile(cpu, q), 1)
        for name, (_, _, cpu) in timed.items()
        for stat, q in (("p50", 50), ("p95", 95))
    }
    if baseline is not None:
        figures["ratio_p50"] = round(figures["hook_p50_ms"] / figures["baseline_hook_p50_ms"], 2)
        figures["ratio_p95"] = round(figures["hook_p95_ms"] / figures["baseline_hook_p95_ms"], 2)
        figures["server_ratio_p95"] = round(
            figures["server_hook_p95_ms"] / figures["baseline_hook_p95_ms"], 2
        )
        figures["server_ratio_to_baseline_server_p95"] = round(
            figures["server_hook_p95_ms"] / figures["baseline_server_hook_p95_ms"], 2
        )
        figures["server_cpu_ratio_to_baseline_server_p50"] = round(
            figures["server_hook_cpu_p50_ms"] / max(figures["baseline_server_hook_cpu_p50_ms"], 0.1), 2
        )
    return {
        "embedder": embedder,
        "memories": n,
        "runs": runs,
        "fill_s": round(fill_s, 1) if fill_s is not None else "kept from an earlier run",
        **figures,
        "cli_hook_p50_ms": round(percentile(cli_ms, 50), 1),
        "cli_hook_p95_ms": round(percentile(cli_ms, 95), 1),
        "python_start_p50_ms": round(percentile(python_ms, 50), 1),
        "python_start_cpu_p50_ms": round(percentile(python_cpu, 50), 1),
        "load_average_at_end": round(load, 1) if load is not None else None,
        "import_p50_ms": round(percentile(import_ms, 50), 1),
        "runs_with_context": timed["hook"][1],
        "server_runs_with_context": timed["server_hook"][1],
        "server_start_s": round(server.started_s, 1),
        "server_loading_hook_p50_ms": round(percentile(loading_ms, 50), 1),
        "server_loading_hook_p95_ms": round(percentile(loading_ms, 95), 1),
        "server_loading_pending_after": loading_pending,
        "server_second_model_ready_s": round(ready_s, 1),
    }


def _entry() -> Path:
    """The file ``install-hooks`` has agents run (``hooks/prompt_entry.py``)."""
    from ..hooks import __file__ as hooks_init

    return Path(hooks_init).with_name("prompt_entry.py")


def _interleaved(
    payloads: Sequence[str],
    variants: dict[str, tuple[Sequence[str], dict[str, str]]],
    servers: dict[str, int],
) -> dict[str, tuple[list[float], int, list[float]]]:
    """Each payload through each variant (a command and its environment) in turn: a noisy machine hits
    all alike. ``servers``: the hook server's pid for the variants it answers (its CPU counts in theirs)."""
    for command, env in variants.values():
        _time_runs(command, payloads[-1:], env)  # warm
    out: dict[str, tuple[list[float], int, list[float]]] = {name: ([], 0, []) for name in variants}
    for payload in payloads:
        for name, (command, env) in variants.items():
            times, answered, cpu = _time_runs(command, [payload], env, servers.get(name))
            out[name] = (out[name][0] + times, out[name][1] + answered, out[name][2] + cpu)
    return out


def _baseline_env(
    env: dict[str, str], baseline: Path, cache: Path, ours: _Server, db: Path, embedder: str
) -> dict[str, str]:
    """The environment of the baseline's hook and server: its code, and a cache folder of its own (the
    socket's name does not tell the two checkouts apart), holding a copy of our server's second-model
    vectors so that it does not embed the memories again."""
    cache.mkdir(parents=True, exist_ok=True)
    if ours.path is not None and (theirs := socket_path(db, embedder, cache)) is not None:
        vectors = ours.path.with_name(ours.path.stem + ".second.arrays")
        _settled(vectors, vectors.with_name(vectors.name + ".journal"))  # saved once nothing is left
        copy_whole(vectors, theirs.with_name(theirs.stem + ".second.arrays"))  # its journal folded in
    return {**env, "PYTHONPATH": str(baseline), "SHITSUJI_CACHE_DIR": str(cache)}


def _settled(path: Path, *others: Path, quiet: float = 2.0, limit: float = 120.0) -> None:
    """Wait until ``path`` exists and neither it nor ``others`` (which may not exist) has changed for
    ``quiet`` seconds (at most ``limit``)."""
    deadline, seen, since = time.monotonic() + limit, None, time.monotonic()
    while time.monotonic() < deadline:
        stamp = [p.stat().st_mtime_ns if p.exists() else None for p in (path, *others)]
        if stamp != seen:
            seen, since = stamp, time.monotonic()
        elif stamp[0] is not None and time.monotonic() - since >= quiet:
            return
        time.sleep(0.2)


class _Server:
    """A hook server process started by the bench, and how to ask it how far it is."""

    def __init__(self, process: subprocess.Popen[bytes], path: Path | None, start: float) -> None:
        self.process, self.path, self.start = process, path, start
        self.started_s = self._wait(lambda status: True, "start")

    def pending(self) -> int:
        """Passages its second model has still to embed."""
        answer = ask(self.path, {"status": True}, timeout=5.0) if self.path else None
        return int((answer or {}).get("status", {}).get("second_pending", 0))

    def ready(self) -> float:
        """Seconds from its start until its second model had embedded every memory."""
        return self._wait(
            lambda status: not status.get("second_pending"), "embed every memory with its second model"
        )

    def _wait(self, done: Callable[[dict[str, Any]], bool], what: str) -> float:
        while True:
            answer = ask(self.path, {"status": True}, timeout=5.0) if self.path else None
            if answer is not None and done(answer.get("status", {})):
                return time.monotonic() - self.start
            if self.process.poll() is not None:
                raise RuntimeError(f"the hook server exited before it could {what}")
            if time.monotonic() - self.start > 1800:
                raise RuntimeError(f"the hook server did not {what} within 30 minutes of its start")
            time.sleep(0.2)


@contextmanager
def _hook_server(db: Path, embedder: str, env: dict[str, str]) -> Iterator[_Server]:
    """A hook server for ``db``, up and answering; stopped afterwards."""
    command = [sys.executable, "-m", "shitsuji.hooks", "serve", "--db", str(db), "--embedder", embedder]
    start = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cache = Path(env["SHITSUJI_CACHE_DIR"]) if "SHITSUJI_CACHE_DIR" in env else default_cache_dir()
    try:
        yield _Server(process, socket_path(db, embedder, cache), start)
    finally:
        process.terminate()
        process.wait(30)
