"""Preference ("recommend / suggest / any advice") questions: rules measured over re-searched lists
(issue 23, pf29). A question with a request frame is searched again on the kept stores with its words
and/or vector taken from the question without the frame; every other question keeps its collected lists.

    .venv/bin/python scripts/experiments/pf29_rules.py --cache /tmp/pf29/base [variant ...]
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recall_folds import BASE, POOL, rank

from shitsuji.bench._measures import session_scores
from shitsuji.memory import _advice, load_embedder
from shitsuji.memory._asked import asked_vector, meaning_words
from shitsuji.memory._embedding import question_vector
from shitsuji.memory._open import open_store
from shitsuji.memory._text import query_terms

EMB = load_embedder("use")


def research(c: dict[str, Any], store: Any, keywords: bool, vector: str) -> dict[str, Any]:
    """``c`` with its lists searched again: ``keywords`` from the frameless text; ``vector``:
    "full" the question's, "topic" the frameless text's, "words" the question's sentence with the
    frameless text's words."""
    topic = _advice.without_request(c["text"])
    out = dict(c)
    if keywords:
        out["asked"] = query_terms(topic)
        out["keyword"] = store.keyword_search(out["asked"], c["chain"], POOL)
    if vector != "full":
        if vector == "topic":
            v = question_vector(EMB, topic, words=True)
        else:
            said = meaning_words(topic)
            v = asked_vector(EMB, c["text"], said) if said else EMB.embed_query(c["text"])
        out["vector"] = store.vector_search(EMB.model_id, v, c["chain"], POOL)
    ids = list({m.memory_id for m in out["keyword"]} | {m.memory_id for m in out["vector"]})
    missing = [i for i in ids if i not in c["memories"]]
    if missing:
        out["memories"] = {**c["memories"], **store.get_many(missing)}
        out["vectors"] = {**c["vectors"], **store.vectors_of(EMB.model_id, missing)}
        if "session" in c:
            out["session"] = {
                **c["session"],
                **{i: str(out["memories"][i].provenance["session"]) for i in missing},
            }
        if "dia" in c:
            out["dia"] = {**c["dia"], **{i: [out["memories"][i].provenance["dia_id"]] for i in missing}}
    return out


def lme_rows(data: list[dict[str, Any]], w: Any) -> list[dict[str, float]]:
    rows = []
    for c in data:
        order = list(dict.fromkeys(c["session"][h.memory.id] for h in rank(c, w, 100)))
        row = session_scores(order, c["answers"], (5, 10))
        row["fold"] = c["fold"]
        row["pref"] = c["kind"] == "single-session-preference"
        rows.append(row)
    return rows


def summary(rows: list[dict[str, float]]) -> str:
    keys = ["recall_any@5", "recall_all@5", "recall_any@10", "recall_all@10", "ndcg@10"]
    mean = {k: sum(r[k] for r in rows) / len(rows) for k in keys}
    folds = defaultdict(list)
    ndcg = defaultdict(list)
    for r in rows:
        folds[r["fold"]].append(r["recall_all@5"])
        ndcg[r["fold"]].append(r["ndcg@10"])
    pref = [r for r in rows if r["pref"]]
    return (
        " / ".join(f"{mean[k]:.4f}" for k in keys)
        + "  all@5 folds "
        + " ".join(f"{sum(v) / len(v):.3f}" for _, v in sorted(folds.items()))
        + "  ndcg@10 folds "
        + " ".join(f"{sum(v) / len(v):.3f}" for _, v in sorted(ndcg.items()))
        + f"  pref any/all@5 {sum(r['recall_any@5'] for r in pref)}/{sum(r['recall_all@5'] for r in pref)} of {len(pref)}"
        + "  pref ndcg "
        + " ".join(f"{r['ndcg@10']:.2f}" for r in pref)
    )


def locomo(data: list[dict[str, Any]], w: Any) -> str:
    turn: dict[str, list[float]] = defaultdict(list)
    for c in data:
        found = {d for h in rank(c, w, 10) for d in c["dia"][h.memory.id]}
        turn[c["fold"]].append(sum(e in found for e in c["evidence"]) / len(c["evidence"]))
    allr = [x for v in turn.values() for x in v]
    return (
        f"{sum(allr) / len(allr):.4f} (" + " / ".join(f"{sum(v) / len(v):.4f}" for v in turn.values()) + ")"
    )


VARIANTS = {
    "base": (False, "full", False),
    "vec=kw": (False, "full", True),
    "kw-frame": (True, "full", False),
    "vec-topic": (False, "topic", False),
    "vec-words": (False, "words", False),
    "kw+vec-topic": (True, "topic", False),
    "kw+vec-words": (True, "words", False),
    "kw+vec-topic, vec=kw": (True, "topic", True),
    "kw, vec=kw": (True, "full", True),
    "vec-topic, vec=kw": (False, "topic", True),
    "kw+vec-words, vec=kw": (True, "words", True),
}
for x in (1.25, 2.0, 4.0, 10.0):
    VARIANTS[f"vec={x}kw"] = (False, "full", x)
    VARIANTS[f"kw, vec={x}kw"] = (True, "full", x)


def only_frames(names: list[str]) -> None:
    """Ablation: the request frame made of these clauses only (``_advice.FRAMES``)."""
    _advice.REQUEST_FRAME = tuple(re.compile(_advice.FRAMES[n], re.IGNORECASE) for n in names)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/pf29/base"))
    p.add_argument("variants", nargs="*", default=list(VARIANTS))
    p.add_argument("--frames", help="comma-separated clauses of _advice.FRAMES (ablation)")
    a = p.parse_args()
    if a.frames:
        only_frames(a.frames.split(","))
    sets = {n: pickle.loads((a.cache / f"{n}.pkl").read_bytes()) for n in ("s", "pooled", "locomo")}
    stores = {n: open_store(a.cache / f"{n}.db") for n in sets}
    try:
        for name in a.variants:
            kw, vec, weigh = VARIANTS[name]
            w = BASE
            out = [f"{name:>24}"]
            for n, data in sets.items():
                data = [
                    research(c, stores[n], kw, vec)
                    if _advice.asks_for_advice(c["text"]) and (kw or vec != "full")
                    else c
                    for c in data
                ]
                vw = w.keyword_weight * (weigh if not isinstance(weigh, bool) else 1.0)

                def ws(c: dict[str, Any], vw: float = vw, weigh: Any = weigh) -> Any:
                    return (
                        replace(BASE, vector_weight=vw)
                        if weigh and _advice.asks_for_advice(c["text"])
                        else BASE
                    )

                if n == "locomo":
                    out.append("LoCoMo " + locomo(data, w))
                else:
                    rows = []
                    for c in data:
                        rows.extend(lme_rows([c], ws(c)))
                    out.append(f"{n}: " + summary(rows))
            print("\n   ".join(out), flush=True)
    finally:
        for s in stores.values():
            s.close()


if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] != "profile"):
    main()


# -- measured, not shipped: the asker's own statements of situation or taste ranked higher ("profile")
SELF_STATEMENT = re.compile(
    r"\b(?:I(?:'m| am) (?:a|an|working|studying|into|trying|learning)|I work|my (?:job|work|field)"
    r"|I (?:really )?(?:enjoy|like|love|prefer)|as an? \w+(?: \w+)?,? I)\b",
    re.IGNORECASE,
)


def profiled(c: dict[str, Any], w: Any, factor: float, k: int = 100) -> list[Any]:
    """The ranking with every self-statement's score times ``factor`` (advice questions only)."""
    hits = rank(c, w, 1000)
    if not _advice.asks_for_advice(c["text"]):
        return hits[:k]
    again = [
        (h.score * (factor if SELF_STATEMENT.search(h.memory.content) else 1.0), n, h)
        for n, h in enumerate(hits)
    ]
    return [h for _, _, h in sorted(again, key=lambda x: (-x[0], x[1]))][:k]


def profile_main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cache", type=Path, default=Path("/tmp/pf29/base"))
    p.add_argument("--kw", action="store_true", help="keywords without the request frame too")
    a = p.parse_args(sys.argv[2:])
    sets = {n: pickle.loads((a.cache / f"{n}.pkl").read_bytes()) for n in ("s", "pooled")}
    stores = {n: open_store(a.cache / f"{n}.db") for n in sets}
    for factor in (1.0, 1.5, 2.0, 3.0):
        out = [f"profile x{factor}"]
        for n, data in sets.items():
            data = [
                research(c, stores[n], True, "full") if a.kw and _advice.asks_for_advice(c["text"]) else c
                for c in data
            ]
            rows = []
            for c in data:
                order = list(dict.fromkeys(c["session"][h.memory.id] for h in profiled(c, BASE, factor)))
                row = session_scores(order, c["answers"], (5, 10))
                row["fold"], row["pref"] = c["fold"], c["kind"] == "single-session-preference"
                rows.append(row)
            out.append(f"{n}: " + summary(rows))
        print("\n   ".join(out), flush=True)


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "profile":
    profile_main()
