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
    FRESH,
    HELD_OUT,
    PROJECT,
    PROJECTS,
    add_first,
    add_projects,
    load_set,
)
from shitsuji.hooks._context import prompt_terms, shared_terms
from shitsuji.hooks._second import load_second_opinion
from shitsuji.hooks._server import warm_up
from shitsuji.memory import MemoryEngine


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
                    h.signals["vector"],
                    *pairs[h.memory.id],
                    shared_terms(h, asked),
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
    with bench_engine("use") as engine:
        add_first(engine)
        result["acme"] = score_all(engine, [PROJECT], prompts)
    with bench_engine("use") as engine:
        add_projects(engine)
        projects = list(load_set(PROJECTS)["projects"].values())
        result["projects"] = score_all(engine, projects, prompts)
    with open(path, "wb") as f:
        pickle.dump(result, f)
    print(f"done in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1])
