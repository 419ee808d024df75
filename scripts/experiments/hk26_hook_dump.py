"""Dump every prompt's candidates of the three hook sets (the bench's engine, server order)."""
import sys, pickle, collections
from shitsuji.bench.hook_relevance import *
from shitsuji.bench.hook_relevance import _case
from shitsuji.hooks._context import relevant_hits, prompt_terms, candidate_hits, prompt_vector
from shitsuji.hooks._chatter import chatter_similarity
from shitsuji.memory import terms
data = load_set()
scopes = {"project": PROJECT, "parent": PARENT}
out = {}
with bench_engine("use") as engine:
    engine.add_many(NewMemory(content=m["content"], scope=scopes[m["scope"]], provenance={"label": m["id"]}) for m in data["memories"])
    engine.add_many(NewMemory(content=t, scope=PROJECT, provenance={"label": f"distractor-{i}"}) for i, t in enumerate(synthetic_memories(DISTRACTORS, seed=3)))
    engine.index_pending()
    model = engine.embedder.model_id
    second = load_second_opinion()
    if sys.argv[2] == "server":
        relevant_hits(engine, "warm up", "fs")
    if sys.argv[2] == "project":  # first-model means over the project's memories too (not what the server does)
        relevant_hits(engine, "warm up", PROJECT)
    mems = list(engine.list_memories())
    second.start([(m.id, m.content) for m in mems], engine.embedder, lambda ids: engine.store.vectors_of(model, ids))
    second.wait_idle(900)
    df = collections.Counter()
    mterms = {}
    for m in mems:
        ts = set(terms(m.content, readings=False))
        mterms[m.provenance["label"]] = ts
        df.update(ts)
    out["df"] = df; out["mterms"] = mterms; out["n"] = len(mems)
    for name in ("hook_relevance.json", HELD_OUT, FRESH):
        rows = []
        for p in load_set(name)["prompts"]:
            vector = prompt_vector(engine, p["prompt"])
            hits = candidate_hits(engine, p["prompt"], PROJECT, vector)
            pairs = second.cosines(p["prompt"], [h for h in hits if "vector" in h.signals], vector) or {}
            kw = engine.recall(p["prompt"], PROJECT, k=20, semantic=False)
            cands = []
            for h in hits:
                c, s = pairs.get(h.memory.id, (None, None))
                cands.append(dict(label=h.memory.provenance["label"], cosine=h.signals.get("vector"), centred=c, second=s,
                                  shared=shared_terms(h, p["prompt"]), excerpt_terms=set(terms(h.excerpt, readings=False))))
            rows.append(dict(prompt=p["prompt"], expect=set(p["expect"]), chatter=chatter_similarity(engine.embedder, vector),
                             pterms=prompt_terms(p["prompt"]), allterms=set(terms(p["prompt"], readings=False)), cands=cands,
                             kw=[(h.memory.provenance["label"], dict(h.signals)) for h in kw]))
        out[name] = rows
    second.stop()
pickle.dump(out, open(sys.argv[1], "wb"))
print("done")
