"""Every labelled prompt (all four sets) against every memory visible from each project, as the hook
server scores a candidate (language-centred first and second model cosines, raw first cosine, shared
terms): what a per-memory "null" of prompts that need nothing can be computed from offline.
``hk28_hook_null_dump.py OUT.pkl`` -> {(engine, scope): {prompt: {label: (raw, centred, second, shared)}}}."""

from __future__ import annotations

import pickle
import sys
import time

from shitsuji.bench._common import bench_engine
from shitsuji.bench.hook_relevance import (
    DISTRACTORS,
    FRESH,
    HELD_OUT,
    PARENT,
    PROJECT,
    PROJECTS,
    load_set,
)
from shitsuji.bench.latency import synthetic_memories
from shitsuji.hooks._context import prompt_terms, shared_terms
from shitsuji.hooks._second import load_second_opinion
from shitsuji.hooks._server import warm_up
from shitsuji.memory import MemoryEngine, NewMemory


def every_prompt() -> list[str]:
    out: list[str] = []
    for name in ("hook_relevance.json", HELD_OUT, FRESH, PROJECTS):
        out += [p["prompt"] for p in load_set(name)["prompts"]]
    return out


def score_all(engine: MemoryEngine, scopes: list[str], prompts: list[str]) -> dict:
    second = load_second_opinion()
    assert second is not None
    warm_up(engine, second)
    second.wait_idle(900)
    out = {}
    for scope in scopes:
        table = {}
        for prompt in prompts:
            vector = engine.embedder.embed_query(prompt)
            hits = engine.recall(prompt, scope, k=2000, lexical=False, vector=vector)
            hits = [h for h in hits if "vector" in h.signals]
            pairs = second.cosines(prompt, hits, vector) or {}
            asked = prompt_terms(prompt)
            table[prompt] = {
                h.memory.provenance["label"]: (
                    h.signals["vector"], *pairs[h.memory.id], shared_terms(h, asked)
                )
                for h in hits
            }
        out[scope] = table
        print(scope, len(table), file=sys.stderr)
    second.stop()
    return out


def main(path: str) -> None:
    start = time.monotonic()
    prompts = every_prompt()
    result = {}
    data = load_set()
    with bench_engine("use") as engine:
        scopes = {"project": PROJECT, "parent": PARENT}
        engine.add_many(
            NewMemory(content=m["content"], scope=scopes[m["scope"]], provenance={"label": m["id"]})
            for m in data["memories"]
        )
        engine.add_many(
            NewMemory(content=t, scope=PROJECT, provenance={"label": f"distractor-{i}"})
            for i, t in enumerate(synthetic_memories(DISTRACTORS, seed=3))
        )
        engine.index_pending()
        result["acme"] = score_all(engine, [PROJECT], prompts)
    data = load_set(PROJECTS)
    with bench_engine("use") as engine:
        scopes = {**data["projects"], "parent": data["parent"]}
        engine.add_many(
            NewMemory(content=m["content"], scope=scopes[m["scope"]], provenance={"label": m["id"]})
            for m in data["memories"]
        )
        for i, scope in enumerate(data["projects"].values()):
            engine.add_many(
                NewMemory(content=t, scope=scope, provenance={"label": f"distractor-{i}-{j}"})
                for j, t in enumerate(synthetic_memories(DISTRACTORS, seed=4 + i))
            )
        engine.index_pending()
        result["projects"] = score_all(engine, list(data["projects"].values()), prompts)
    with open(path, "wb") as f:
        pickle.dump(result, f)
    print(f"done in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1])
