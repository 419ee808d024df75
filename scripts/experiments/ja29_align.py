"""Issue 23 (ja29): word-to-word alignment of a question with each recalled note, measured offline.

Each set is ingested as ``bench japanese`` does (200 distractors a member). For every query the
first ``K`` hits of ``recall`` are re-scored by how well the question's content words
(``_asked_ja.question_words``) are met by the note's (the same rule on the note's text): for each
question word its best cosine among the note's words (``use`` word vectors), averaged. Prints the
expected fact's rank under recall's order, the alignment alone, and reciprocal-rank fusion of the
two (k = 60, the usual constant; nothing tuned), and hit@3 / hit@1 per order.

    .venv/bin/python scripts/experiments/ja29_align.py --sets fresh,held,recall,dev,mixed
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ja28_variants as h

from shitsuji.bench._common import bench_engine
from shitsuji.bench.japanese import HOUSEHOLD, NOW
from shitsuji.memory._asked import WORD_VECTORS
from shitsuji.memory._asked_ja import question_words
from shitsuji.memory._readings import kanji_spelling

h.SETS["mixed"] = h.D / "ja-mixed"
_JA = h._JA
K = 30


def words_of(text: str) -> list[str]:
    return question_words(text, kanji_spelling(text))


def vecs(embedder, words):
    if not words:
        return None
    _, each = WORD_VECTORS.of(embedder, words[0], words)
    return np.stack(each)


def align(embedder, qw, note):
    nw = vecs(embedder, words_of(note))
    if qw is None or nw is None:
        return 0.0
    return float((qw @ nw.T).max(axis=1).mean())


def main() -> None:
    args = sys.argv[1:]
    sets = (
        args[args.index("--sets") + 1].split(",") if "--sets" in args else ["fresh", "held", "recall", "dev"]
    )
    show = "--show" in args
    for name in sets:
        with bench_engine("use", clock=lambda: NOW) as engine:
            fid, queries = h.ingest(engine, h.SETS[name])
            tally = defaultdict(lambda: [0, 0])
            for q in queries:
                hits = engine.recall(q["query"], f"{HOUSEHOLD}/user/{q['user']}", k=K)
                ids = [fid.get(x.memory.id) for x in hits]
                qw = vecs(engine.embedder, words_of(q["query"]))
                scores = [align(engine.embedder, qw, x.memory.content) for x in hits]
                by_align = sorted(range(len(hits)), key=lambda i: -scores[i])
                arank = {i: r for r, i in enumerate(by_align)}
                rrf = sorted(range(len(hits)), key=lambda i: -(1 / (61 + i) + 1 / (61 + arank[i])))
                qj = bool(_JA.search(q["query"]))
                cross = [bool(_JA.search(x.memory.content)) != qj for x in hits]
                # only a note in the other script (no keyword but names can meet it) takes its alignment's rank
                xrrf = sorted(
                    range(len(hits)),
                    key=lambda i: -(1 / (61 + i) + 1 / (61 + (arank[i] if cross[i] else i))),
                )
                orders = {"recall": list(range(len(hits))), "align": by_align, "rrf": rrf, "xrrf": xrrf}
                pos = {}
                for o, order in orders.items():
                    pos[o] = next((r for r, i in enumerate(order) if ids[i] in q["expected"]), 99)
                    tally[o][0] += pos[o] < 3
                    tally[o][1] += pos[o] == 0
                if "--dump" in args and pos["recall"] >= 3:
                    e = next((i for i, x in enumerate(ids) if x in q["expected"]), None)
                    print(f"   MISS {q['query']}  words {words_of(q['query'])}")
                    for i in [*range(3), *([e] if e is not None else [])]:
                        print(f"      {i:2} align {scores[i]:.3f} {hits[i].memory.content[:60]}")
                if show or len({min(p, 3) for p in pos.values()}) > 1:
                    print(
                        f"   {name} {pos['recall']:2} align {pos['align']:2} rrf {pos['rrf']:2} xrrf {pos['xrrf']:2}  {q['query']}"
                    )
            n = len(queries)
            print(name, " ".join(f"{o} {a / n:.3f}/{b / n:.3f}" for o, (a, b) in tally.items()), flush=True)


if __name__ == "__main__":
    main()
